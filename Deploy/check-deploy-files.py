#!/usr/bin/env python3
"""Structural checks of the container recipe and the Kubernetes manifests against the code.

  check-deploy-files.py --settings config.json --routes routes.txt --depends "Depends: …" [--deploy DIR]

config.json is `scorecast config --json`; routes.txt the GET routes the server registers, one a
line; --depends the .deb's Depends: line (Deploy/package.sh --print-depends). Prints every
finding and exits 1 if there is one. DeployTests runs it; run it after editing the manifests.

Checked: every manifest parses and names its kind; kustomization.yaml lists every manifest but
the example Secret, which it must not apply; every Deployment, whatever its role, has liveness
and readiness probes, and every probe asks a route the server serves, on a port the container declares; every SCORECAST_*
name (env, ConfigMap, Secret, Containerfile ENV) is a real setting; each Deployment runs `serve --roles <role>` for a real role, has resources, a
non-root security context, a PodDisruptionBudget selecting its pods, a grace period longer
than the shutdown grace, and its env from a Secret that exists; the migrate Job runs
`migrate`; the Containerfile builds on Swift, runs on debian:12-slim as a non-root user with a
HEALTHCHECK on /healthz, and installs the .deb's runtime packages, no more and no fewer.
"""
import argparse
import glob
import json
import os
import re
import sys

import yaml

DEPLOY = os.path.dirname(os.path.abspath(__file__))  # --deploy checks a copy instead
# Packages debian:12-slim has already (apt itself needs them), so the image need not install them.
BASE_IMAGE_PACKAGES = {"libc6", "libgcc-s1", "libstdc++6"}
# Packages of the .deb the image does without: the maintainer scripts' adduser.
DEB_ONLY_PACKAGES = {"adduser"}

# The Secret's template: filled in and applied by hand, never by `kubectl apply -k`.
EXAMPLE_SECRET = "secret.example.yaml"

findings = []


def finding(where, message):
    findings.append(f"{where}: {message}")


def load_manifests():
    manifests = {}
    for path in sorted(glob.glob(os.path.join(DEPLOY, "kubernetes", "*.yaml"))):
        name = os.path.basename(path)
        try:
            with open(path) as file:
                documents = [document for document in yaml.safe_load_all(file) if document is not None]
        except yaml.YAMLError as error:
            finding(name, f"does not parse: {error}")
            continue
        for document in documents:
            if not isinstance(document, dict) or not document.get("kind") or not document.get("apiVersion"):
                finding(name, "a document without kind or apiVersion")
        manifests[name] = documents
    return manifests


def check_setting(where, name, value, settings):
    """A SCORECAST_* name must be a setting; a roles value must name real roles."""
    if not name.startswith("SCORECAST_"):
        return
    if name not in settings:
        finding(where, f"{name} is not a setting of `scorecast config`")
    elif value is not None and name == "SCORECAST_ROLES":
        for role in value.split(","):
            if role not in roles(settings):
                finding(where, f"{name}: {role} is not a role")


def roles(settings):
    return settings["SCORECAST_ROLES"]["defaultValue"].split(",")


def shutdown_grace(settings, configured):
    return int(configured.get("SCORECAST_SHUTDOWN_GRACE_SECONDS", settings["SCORECAST_SHUTDOWN_GRACE_SECONDS"]["defaultValue"]))


def check_probe(where, container, kind, expected_path, routes):
    probe = container.get(kind)
    if probe is None:
        finding(where, f"no {kind}")
        return
    get = probe.get("httpGet") or {}
    path = get.get("path")
    if path not in routes:
        finding(where, f"{kind} asks {path}, which the server does not serve")
    elif expected_path and path != expected_path:
        finding(where, f"{kind} asks {path}, not {expected_path}")
    port = get.get("port")
    declared = {p.get("name") for p in container.get("ports", [])} | {p.get("containerPort") for p in container.get("ports", [])}
    if port not in declared:
        finding(where, f"{kind} port {port} is not a port of the container")


def check_kubernetes(manifests, settings, routes):
    documents = [(name, document) for name, docs in manifests.items() for document in docs]
    by_kind = {}
    for name, document in documents:
        by_kind.setdefault(document.get("kind"), []).append((name, document))

    kustomization = manifests.get("kustomization.yaml", [{}])[0]
    listed = set(kustomization.get("resources", []))
    for name in manifests:
        if name not in ("kustomization.yaml", EXAMPLE_SECRET) and name not in listed:
            finding("kustomization.yaml", f"does not list {name}")
    if EXAMPLE_SECRET in listed:
        finding("kustomization.yaml", f"applies {EXAMPLE_SECRET}, whose placeholders would overwrite a real Secret")
    for name in listed - set(manifests):
        finding("kustomization.yaml", f"lists {name}, which does not exist")

    configured = {}
    for name, config_map in by_kind.get("ConfigMap", []):
        for key, value in (config_map.get("data") or {}).items():
            check_setting(name, key, str(value), settings)
            configured[key] = str(value)
    secrets = set()
    for name, secret in by_kind.get("Secret", []):
        secrets.add(secret["metadata"]["name"])
        for key in list((secret.get("stringData") or {}).keys()) + list((secret.get("data") or {}).keys()):
            check_setting(name, key, None, settings)
            if not key.startswith("SCORECAST_"):
                finding(name, f"{key} is not a SCORECAST_* setting")
    config_maps = {config_map["metadata"]["name"] for _, config_map in by_kind.get("ConfigMap", [])}
    grace = shutdown_grace(settings, configured)

    budgets = [budget for _, budget in by_kind.get("PodDisruptionBudget", [])]
    seen_roles = set()
    workloads = by_kind.get("Deployment", []) + by_kind.get("Job", [])
    for name, workload in workloads:
        where = f"{name} {workload['kind']} {workload['metadata']['name']}"
        pod = workload["spec"]["template"]["spec"]
        labels = workload["spec"]["template"]["metadata"].get("labels", {})
        if not (pod.get("securityContext") or {}).get("runAsNonRoot"):
            finding(where, "pods may run as root (securityContext.runAsNonRoot)")
        for container in pod["containers"]:
            for variable in container.get("env", []):
                check_setting(where, variable["name"], variable.get("value"), settings)
            sources = container.get("envFrom", [])
            for source in sources:
                if "secretRef" in source and source["secretRef"]["name"] not in secrets:
                    finding(where, f"env from Secret {source['secretRef']['name']}, which no manifest defines")
                if "configMapRef" in source and source["configMapRef"]["name"] not in config_maps:
                    finding(where, f"env from ConfigMap {source['configMapRef']['name']}, which no manifest defines")
            if not any("secretRef" in source for source in sources):
                finding(where, "takes no env from a Secret (the database URL and ops token live there)")
            resources = container.get("resources") or {}
            if not resources.get("requests") or not (resources.get("limits") or {}).get("memory"):
                finding(where, "no resource requests or memory limit")
            if (container.get("securityContext") or {}).get("allowPrivilegeEscalation") is not False:
                finding(where, "allowPrivilegeEscalation is not false")
            arguments = container.get("args") or []
            if workload["kind"] == "Job":
                if arguments != ["migrate"]:
                    finding(where, f"runs {arguments}, not migrate")
                continue
            if arguments[:2] != ["serve", "--roles"] or len(arguments) != 3:
                finding(where, f"runs {arguments}, not serve --roles <role>")
                continue
            role = arguments[2]
            seen_roles.add(role)
            if role not in roles(settings):
                finding(where, f"--roles {role} is not a role")
            # Every role serves /healthz and /readyz (the API's port, or the ops port).
            check_probe(where, container, "livenessProbe", "/healthz", routes)
            check_probe(where, container, "readinessProbe", "/readyz", routes)
            if "startupProbe" in container:
                check_probe(where, container, "startupProbe", None, routes)
        if workload["kind"] == "Deployment":
            if pod.get("terminationGracePeriodSeconds", 30) <= grace:
                finding(where, f"terminationGracePeriodSeconds is not above the shutdown grace ({grace} s)")
            matching = [budget for budget in budgets
                        if all(labels.get(key) == value for key, value in budget["spec"]["selector"]["matchLabels"].items())]
            if len(matching) != 1:
                finding(where, f"{len(matching)} PodDisruptionBudgets select its pods, not 1")
    for role in roles(settings):
        if role not in seen_roles:
            finding("kubernetes", f"no Deployment runs the {role} role")
    if not by_kind.get("Job"):
        finding("kubernetes", "no migrate Job")


def check_containerfile(settings, routes, depends):
    where = "container/Containerfile"
    with open(os.path.join(DEPLOY, "container", "Containerfile")) as file:
        text = re.sub(r"\\\n", " ", file.read())
    lines = [line.strip() for line in text.splitlines() if line.strip() and not line.strip().startswith("#")]
    stages = [line.split()[1] for line in lines if line.startswith("FROM ")]
    if len(stages) < 2 or not stages[0].startswith("swift:") or stages[-1] != "debian:12-slim":
        finding(where, f"stages {stages}: want a swift:… build stage and a debian:12-slim run stage")
    run_stage = lines[max(i for i, line in enumerate(lines) if line.startswith("FROM ")):]
    users = [line.split()[1] for line in run_stage if line.startswith("USER ")]
    if not users or users[-1].split(":")[0] in ("root", "0"):
        finding(where, "the run stage does not switch to a non-root USER")
    health = [line for line in run_stage if line.startswith("HEALTHCHECK ")]
    if not health or not any(f"{route}\"" in health[0] or f"{route} " in health[0] for route in ["/healthz"] if route in routes):
        finding(where, "no HEALTHCHECK on /healthz (or the server does not serve it)")
    for line in run_stage:
        if line.startswith("ENV "):
            for name, value in re.findall(r"(SCORECAST_[A-Z0-9_]+)=(\S+)", line):
                check_setting(where, name, value, settings)
    installs = [line for line in run_stage if "apt-get install" in line]
    packages = set()
    for line in installs:
        words = line.split("apt-get install", 1)[1].split("&&")[0].split()
        packages |= {word for word in words if not word.startswith("-")}
    wanted = {entry.strip().split()[0] for entry in depends.split(":", 1)[1].split(",") if entry.strip()}
    missing = wanted - DEB_ONLY_PACKAGES - BASE_IMAGE_PACKAGES - packages
    extra = packages - wanted
    if missing:
        finding(where, f"the image lacks runtime packages the .deb depends on: {', '.join(sorted(missing))}")
    if extra:
        finding(where, f"the image installs packages the .deb does not depend on: {', '.join(sorted(extra))}")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--settings", required=True)
    parser.add_argument("--routes", required=True)
    parser.add_argument("--depends", required=True)
    parser.add_argument("--deploy", help="the folder holding kubernetes/ and container/ (default: this script's)")
    options = parser.parse_args()
    global DEPLOY
    DEPLOY = options.deploy or DEPLOY
    with open(options.settings) as file:
        settings = {row["name"]: row for row in json.load(file)}
    with open(options.routes) as file:
        routes = {line.strip() for line in file if line.strip()}
    manifests = load_manifests()
    check_kubernetes(manifests, settings, routes)
    check_containerfile(settings, routes, options.depends)
    for line in findings:
        print(line)
    print(f"{len(manifests)} manifests and the Containerfile checked: {len(findings)} finding(s)")
    sys.exit(1 if findings else 0)


if __name__ == "__main__":
    main()
