// The scriptable HTTP/2 TLS test server (Python, hyper-h2), kept as a string so that the
// test target has no unhandled resource files. Written to a temporary folder and run with python3.
enum H2TestServerScript {
    static let source = #"""
"""A scriptable HTTP/2 TLS server for the APNs transport tests.

Prints one JSON line {"port": N} once it listens. Every request is answered with a JSON echo of
what arrived (method, path, headers, body length) unless a directive says otherwise. Directives
come from request headers (x-test-status, x-test-reason, x-test-delay-ms, x-test-header-NAME)
or from command-line flags that shape the whole server (stream limit, GOAWAY, cuts, silence).
GET /_stats answers counters as JSON and is not counted itself.
"""
import argparse
import base64
import os
import asyncio
import json
import ssl
import sys

import h2.config
import h2.connection
import h2.errors
import h2.events
import h2.settings
from hyperframe.frame import GoAwayFrame

parser = argparse.ArgumentParser()
parser.add_argument("--cert", required=True)
parser.add_argument("--key", required=True)
parser.add_argument("--max-concurrent-streams", type=int, default=1000)
parser.add_argument("--goaway-after", type=int, default=0,
                    help="after this many requests on a connection send GOAWAY naming the last of them")
parser.add_argument("--goaway-every-connection", action="store_true",
                    help="GOAWAY on every connection, not only the first")
parser.add_argument("--goaway-close-limit-ms", type=int, default=10000,
                    help="after a GOAWAY, close at the latest after this long even if the client never showed it read it")
parser.add_argument("--goaway-before", type=int, default=0,
                    help="when this request (counted over the server) arrives, send GOAWAY naming the stream before it, "
                         "so that it is never processed, and leave it unanswered (RFC 9113 §6.8)")
parser.add_argument("--cut-after", type=int, default=0,
                    help="close the first connection abruptly (no GOAWAY) after this many requests")
parser.add_argument("--silent", action="store_true", help="accept requests, never answer")
parser.add_argument("--delay-ms", type=int, default=0)
parser.add_argument("--expire-first-token", action="store_true",
                    help="answer 403 ExpiredProviderToken to every request carrying the first authorization seen")
parser.add_argument("--always-expired", action="store_true", help="answer 403 ExpiredProviderToken to everything")
parser.add_argument("--fail-first", type=int, default=0, help="answer the first N requests with --fail-status")
parser.add_argument("--fail-status", type=int, default=503)
parser.add_argument("--fail-reason", default="ServiceUnavailable")
args = parser.parse_args()

stats = {"resets_received": 0, "pings": 0, "connections": 0, "requests": 0, "max_concurrent": 0, "goaways": 0, "cuts": 0, "refused": 0,
         "paths": {}, "authorizations": []}
cut_done = False
goaway_done = False
GOAWAY_PING = b"goaway!!"


class Connection:
    def __init__(self, reader, writer):
        self.reader = reader
        self.writer = writer
        config = h2.config.H2Configuration(client_side=False, header_encoding="utf-8")
        self.conn = h2.connection.H2Connection(config=config)
        self.streams = {}
        self.open_streams = set()
        self.requests = 0
        self.goaway_sent = False
        self.goaway_read = False
        self.last_allowed = None
        self.answering = 0
        self.closed = False
        # Raw view of the client's frames: h2 drops RST_STREAM on streams it already closed
        # without an event, so those are counted here.
        self.raw = bytearray()
        self.preface_skipped = False

    def count_frames(self, data):
        self.raw += data
        if not self.preface_skipped:
            if len(self.raw) < 24:
                return
            del self.raw[:24]
            self.preface_skipped = True
        while len(self.raw) >= 9:
            length = int.from_bytes(self.raw[0:3], "big")
            if len(self.raw) < 9 + length:
                return
            if self.raw[3] == 0x3:
                stats["resets_received"] += 1
            del self.raw[:9 + length]

    def flush(self):
        data = self.conn.data_to_send()
        if data and not self.closed:
            self.writer.write(data)

    async def run(self):
        stats["connections"] += 1
        self.conn.initiate_connection()
        self.conn.update_settings({h2.settings.SettingCodes.MAX_CONCURRENT_STREAMS: args.max_concurrent_streams})
        self.flush()
        try:
            while not self.closed:
                data = await self.reader.read(65536)
                if not data:
                    break
                self.count_frames(data)
                try:
                    events = self.conn.receive_data(data)
                except Exception:
                    break
                for event in events:
                    self.handle(event)
                self.flush()
                await self.writer.drain()
        except (ConnectionResetError, ssl.SSLError, BrokenPipeError):
            pass
        finally:
            self.closed = True
            try:
                self.writer.close()
            except Exception:
                pass

    def handle(self, event):
        global cut_done, goaway_done
        if isinstance(event, h2.events.RequestReceived):
            headers = dict(event.headers)
            if len(self.open_streams) >= args.max_concurrent_streams:
                # Over our advertised limit (the client may not have seen our SETTINGS yet):
                # refuse the stream, as RFC 9113 §5.1.2 prescribes; it was not processed.
                stats["refused"] += 1
                self.conn.reset_stream(event.stream_id, error_code=h2.errors.ErrorCodes.REFUSED_STREAM)
                return
            self.streams[event.stream_id] = {"headers": headers, "body": bytearray()}
            self.open_streams.add(event.stream_id)
            stats["max_concurrent"] = max(stats["max_concurrent"], len(self.open_streams))
        elif isinstance(event, h2.events.DataReceived):
            stream = self.streams.get(event.stream_id)
            if stream is not None:
                stream["body"] += event.data
            try:
                self.conn.acknowledge_received_data(event.flow_controlled_length, event.stream_id)
            except Exception:
                pass
        elif isinstance(event, h2.events.StreamEnded):
            stream = self.streams.get(event.stream_id)
            if stream is None:
                return
            path = stream["headers"].get(":path", "")
            if path == "/_stats":
                self.respond(event.stream_id, 200, {"content-type": "application/json"},
                             json.dumps(stats).encode())
                return
            if self.goaway_sent and event.stream_id > self.last_allowed:
                return
            if args.goaway_before and not goaway_done and stats["requests"] + 1 == args.goaway_before:
                goaway_done = True
                self.send_goaway(event.stream_id - 2)
                return
            self.requests += 1
            stats["requests"] += 1
            stats["paths"][path] = stats["paths"].get(path, 0) + 1
            auth = stream["headers"].get("authorization")
            if auth is not None and auth not in stats["authorizations"]:
                stats["authorizations"].append(auth)
            expired = args.always_expired or (args.expire_first_token and auth is not None
                                                and auth == stats["authorizations"][0])
            if expired:
                stream["headers"]["x-test-status"] = "403"
                stream["headers"]["x-test-reason"] = "ExpiredProviderToken"
            elif stats["requests"] <= args.fail_first:
                stream["headers"]["x-test-status"] = str(args.fail_status)
                stream["headers"]["x-test-reason"] = args.fail_reason
            if args.cut_after and not cut_done and self.requests >= args.cut_after:
                cut_done = True
                stats["cuts"] += 1
                self.closed = True
                self.writer.transport.abort()
                return
            if args.silent:
                return
            self.answering += 1
            asyncio.get_event_loop().create_task(self.answer(event.stream_id, stream))
            if (args.goaway_after and not self.goaway_sent and self.requests >= args.goaway_after
                    and (args.goaway_every_connection or not goaway_done)):
                goaway_done = True
                self.send_goaway(event.stream_id)
        elif isinstance(event, h2.events.PingReceived):
            stats["pings"] += 1
        elif isinstance(event, h2.events.PingAckReceived) and event.ping_data == GOAWAY_PING:
            self.goaway_read = True
            self.close_if_done()
        elif isinstance(event, h2.events.StreamReset):
            self.open_streams.discard(event.stream_id)
        elif isinstance(event, h2.events.ConnectionTerminated):
            self.closed = True

    def send_goaway(self, last_stream_id):
        # h2 refuses to send anything after its own close_connection(), but a real server
        # finishes the streams at or below the GOAWAY's last id: write the frame by hand.
        # A PING follows it: the client handles frames in order, so its ACK shows it has read the
        # GOAWAY and opens no stream here any more. Closing earlier, at a fixed delay, raced a
        # loaded client still writing new streams: the close reset the connection, the GOAWAY
        # unread, and a stream the server never processed looked to the client as if it might
        # have been (RFC 9113 §6.8 asks a server to wait for in-flight streams before closing).
        self.goaway_sent = True
        self.last_allowed = last_stream_id
        stats["goaways"] += 1
        self.flush()
        self.writer.write(GoAwayFrame(stream_id=0, last_stream_id=last_stream_id, error_code=0).serialize())
        self.conn.ping(GOAWAY_PING)
        self.flush()
        asyncio.get_event_loop().create_task(self.close_at_the_latest())

    def close_if_done(self):
        """Close once the client has read the GOAWAY and every stream below it is answered."""
        if self.goaway_read and self.answering == 0 and not self.closed:
            self.close()

    async def close_at_the_latest(self):
        # Only for a client that never acknowledges the PING (a client that ends the connection
        # itself is seen by run()); not a margin any test relies on.
        await asyncio.sleep(args.goaway_close_limit_ms / 1000)
        if not self.closed:
            self.close()

    def close(self):
        self.flush()
        self.closed = True
        self.writer.close()

    async def answer(self, stream_id, stream):
        headers = stream["headers"]
        delay = int(headers.get("x-test-delay-ms", args.delay_ms))
        if delay:
            await asyncio.sleep(delay / 1000)
        status = int(headers.get("x-test-status", "200"))
        extra = {"apns-request-id": headers.get("apns-request-id", "00000000-0000-0000-0000-%012d" % stream_id)}
        if status == 200 and headers.get(":method") == "POST" and headers.get(":path", "").endswith("/channels"):
            # Channel creation answers like APNs: 201 with the new id in apns-channel-id.
            status = 201
            extra["apns-channel-id"] = base64.b64encode(os.urandom(12)).decode()
        for name, value in headers.items():
            if name.startswith("x-test-header-"):
                extra[name[len("x-test-header-"):]] = value
        if "x-test-body-bytes" in headers:
            body = b"x" * int(headers["x-test-body-bytes"])
        elif "x-test-reason" in headers:
            body = json.dumps({"reason": headers["x-test-reason"]}).encode()
        else:
            body = json.dumps({"method": headers.get(":method"), "path": headers.get(":path"),
                               "headers": {k: v for k, v in headers.items() if not k.startswith(":")},
                               "body_length": len(stream["body"]),
                               "body": stream["body"].decode("utf-8", "replace")}).encode()
        self.respond(stream_id, status, extra, body)
        self.flush()
        self.answering -= 1
        if self.goaway_sent:
            self.close_if_done()

    def respond(self, stream_id, status, extra, body):
        if self.closed:
            return
        try:
            response = [(":status", str(status))]
            if body or "x-test-no-content-length" not in self.streams.get(stream_id, {}).get("headers", {}):
                response.append(("content-length", str(len(body))))
            response += list(extra.items())
            self.conn.send_headers(stream_id, response, end_stream=not body)
            # h2 sends no DATA frame larger than the peer's frame size: split the body.
            size = self.conn.max_outbound_frame_size
            for offset in range(0, len(body), size):
                chunk = body[offset:offset + size]
                self.conn.send_data(stream_id, chunk, end_stream=offset + size >= len(body))
        except Exception:
            pass
        self.open_streams.discard(stream_id)
        self.streams.pop(stream_id, None)
        self.flush()


async def main():
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(args.cert, args.key)
    context.set_alpn_protocols(["h2"])

    async def on_client(reader, writer):
        await Connection(reader, writer).run()

    server = await asyncio.start_server(on_client, "127.0.0.1", 0, ssl=context)
    port = server.sockets[0].getsockname()[1]
    print(json.dumps({"port": port}), flush=True)

    async def watch_stdin():
        # The test holds our stdin open; when it goes away, so do we.
        loop = asyncio.get_event_loop()
        await loop.run_in_executor(None, sys.stdin.read)
        loop.stop()

    asyncio.get_event_loop().create_task(watch_stdin())
    async with server:
        await server.serve_forever()


try:
    asyncio.run(main())
except RuntimeError:
    pass
"""#
}
