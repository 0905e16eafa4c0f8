#!/usr/bin/python3
"""The peer of scorecast's benchmark part 2: aioapns (Debian's python3-aioapns, a maintained
asyncio APNs client) sending device pushes to the scorecast APNs simulator.

aioapns hard-codes Apple's host and port on its protocol classes (APNS_SERVER, APNS_PORT in
aioapns/connection.py) and takes an ssl.SSLContext. So the simulator is targeted by a subclass
that only changes those two constants, and trusted through an SSLContext that loads the
simulator's CA and offers ALPN "h2" (as Apple's host expects). Nothing else is patched: the
pushes go through aioapns's own pool, JWT provider, h2 framing and response matching.

Prints one JSON line: {"sent", "succeeded", "failed", "seconds", "rate", "cpu_seconds",
"statuses", "version", "body_bytes"}.
"""
import argparse
import asyncio
import collections
import json
import ssl
import sys
import time
from importlib import metadata

from aioapns import APNs, NotificationRequest, PushType
from aioapns.connection import APNsProductionClientProtocol


def parse_arguments():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--ca", required=True, help="the simulator's CA certificate (PEM)")
    parser.add_argument("--key", required=True, help="the team's .p8 key")
    parser.add_argument("--key-id", required=True)
    parser.add_argument("--team-id", required=True)
    parser.add_argument("--bundle", required=True)
    parser.add_argument("--token", required=True, help="the device (push-to-start) token")
    parser.add_argument("--payload", required=True, help="the JSON body, as json.dumps writes it")
    parser.add_argument("--count", type=int, required=True, help="pushes in the measured run")
    parser.add_argument("--warmup", type=int, default=200, help="pushes before the measured run")
    parser.add_argument("--concurrency", type=int, default=100, help="pushes in flight")
    parser.add_argument("--connections", type=int, default=1)
    parser.add_argument("--time-limit", type=float, default=120.0, help="seconds; the run stops after it")
    return parser.parse_args()


async def run(args):
    class SimulatorProtocol(APNsProductionClientProtocol):
        APNS_SERVER = args.host
        APNS_PORT = args.port

    context = ssl.create_default_context(cafile=args.ca)
    context.set_alpn_protocols(["h2"])
    client = APNs(key=args.key, key_id=args.key_id, team_id=args.team_id,
                  topic=args.bundle + ".push-type.liveactivity", max_connections=args.connections,
                  ssl_context=context)
    client.pool.protocol_class = SimulatorProtocol

    with open(args.payload, "rb") as handle:
        body = handle.read()
    message = json.loads(body)
    # aioapns serialises the message itself: check that it puts the very same bytes on the wire.
    if json.dumps(message, ensure_ascii=False).encode() != body:
        raise SystemExit("the payload file is not in json.dumps form: the bodies would differ")

    statuses = collections.Counter()

    async def lanes(total, deadline):
        remaining = [total]

        async def lane():
            while remaining[0] > 0 and time.monotonic() < deadline:
                remaining[0] -= 1
                request = NotificationRequest(device_token=args.token, message=message, priority="10",
                                              push_type=PushType.LIVEACTIVITY)
                try:
                    response = await client.send_notification(request)
                    statuses[str(response.status)] += 1
                except Exception as error:  # a push without an answer counts as failed
                    statuses[type(error).__name__] += 1

        await asyncio.gather(*(lane() for _ in range(args.concurrency)))

    await lanes(args.warmup, time.monotonic() + args.time_limit)
    statuses.clear()
    cpu_before = time.process_time()
    started = time.perf_counter()
    await lanes(args.count, time.monotonic() + args.time_limit)
    seconds = time.perf_counter() - started
    cpu = time.process_time() - cpu_before
    succeeded = statuses.get("200", 0)
    print(json.dumps({
        "sent": sum(statuses.values()), "succeeded": succeeded, "failed": sum(statuses.values()) - succeeded,
        "seconds": seconds, "rate": succeeded / seconds if seconds > 0 else 0.0, "cpu_seconds": cpu,
        "statuses": dict(statuses), "version": metadata.version("aioapns"), "body_bytes": len(body),
    }))
    client.pool.close()


def main():
    args = parse_arguments()
    asyncio.run(run(args))
    sys.stdout.flush()


if __name__ == "__main__":
    main()
