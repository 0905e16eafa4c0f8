#!/usr/bin/env python3
"""Writes the files of the Debian package that come from the binary itself, so that they can
never disagree with it:

  render.py environment BINARY > scorecast.env   every setting of `scorecast config`, commented,
                                                 with its meaning and built-in default
  render.py manual BINARY > scorecast.1          a man page from `--help`, every command's help
                                                 and the settings

The binary runs with an empty environment: the defaults shown are the built-in ones, whatever
the packager's shell has set.
"""
import datetime
import json
import os
import re
import subprocess
import sys
import textwrap

# Settings the package sets instead of leaving them at their built-in default.
PACKAGE_VALUES = {"SCORECAST_STATE_DIR": "/var/lib/scorecast"}


def run(binary, *arguments):
    result = subprocess.run([binary, *arguments], env={}, capture_output=True, text=True, check=True)
    return result.stdout


def settings(binary):
    return json.loads(run(binary, "config", "--json"))


def environment_file(binary):
    version = run(binary, "--version").strip()
    lines = [
        "# /etc/scorecast/scorecast.env: the settings of scorecast's systemd units (EnvironmentFile=).",
        f"# Generated from `scorecast config` of {version}.",
        "# One NAME=value per line, no quotes; a commented line shows the built-in default.",
        "# Secrets live here too (the database URL, the ops token): keep the file 0640 root:scorecast.",
        "# Check it as the service will read it:",
        "#   sudo sh -c 'set -a; . /etc/scorecast/scorecast.env; exec scorecast config'",
        "",
    ]
    for setting in settings(binary):
        name = setting["name"]
        lines += ["# " + line for line in textwrap.wrap(setting["help"], 96)]
        if name in PACKAGE_VALUES:
            lines.append(f"{name}={PACKAGE_VALUES[name]}")
        else:
            default = "" if setting["defaultValue"] == "unset" else setting["defaultValue"]
            lines.append(f"#{name}={default}")
        lines.append("")
    return "\n".join(lines)


def roff(text):
    """Text made safe for roff: backslashes, and leading dots or quotes."""
    text = text.replace("\\", "\\e")
    return re.sub(r"^([.'])", r"\\&\1", text, flags=re.M)


def commands(binary):
    """The command words of the overview's table, in help order."""
    words, in_table = [], False
    for line in run(binary, "--help").splitlines():
        if line.startswith("command "):
            in_table = True
        elif in_table and not line.strip():
            break
        elif in_table:
            words.append(re.split(r"\s{2,}", line.strip())[0])
    return words


def manual(binary):
    version = run(binary, "--version").strip()
    release = version.split()[1]
    overview = run(binary, "--help")
    # SOURCE_DATE_EPOCH (reproducible builds) dates the page when set.
    epoch = os.environ.get("SOURCE_DATE_EPOCH")
    date = datetime.datetime.fromtimestamp(int(epoch), datetime.timezone.utc).date() if epoch else datetime.date.today()
    page = [
        f'.TH SCORECAST 1 "{date.isoformat()}" "scorecast {release}" "User Commands"',
        ".SH NAME",
        "scorecast \\- Live Activity score updates through APNs broadcast channels",
        ".SH SYNOPSIS",
        ".B scorecast",
        ".I command",
        "[\\fIoptions\\fR]",
        ".SH DESCRIPTION",
        ".nf",
        roff(overview.rstrip()),
        ".fi",
        ".SH COMMANDS",
    ]
    for command in commands(binary):
        page += [f".SS {roff(command)}", ".nf", roff(run(binary, *command.split(), "--help").rstrip()), ".fi"]
    page.append(".SH ENVIRONMENT")
    for setting in settings(binary):
        text = f"{setting['help']} Default: {setting['defaultValue']}."
        if setting["name"] in PACKAGE_VALUES:
            text += f" The package's environment file sets {PACKAGE_VALUES[setting['name']]}."
        page += [".TP", f".B {setting['name']}", roff(text)]
    page += [
        ".SH FILES",
        ".TP",
        ".I /etc/scorecast/scorecast.env",
        "The settings the systemd units read (mode 0640, root:scorecast).",
        ".TP",
        ".I /var/lib/scorecast",
        "The state folder: the embedded Postgres when no database URL is set, the built-in APNs simulator's files.",
        ".TP",
        ".I /lib/systemd/system/scorecast*.service",
        "The units: everything in one (scorecast), or one role each (scorecast-api, scorecast-worker@, scorecast-poller).",
        "",
    ]
    return "\n".join(page)


if __name__ == "__main__":
    if len(sys.argv) != 3 or sys.argv[1] not in ("environment", "manual"):
        sys.exit("usage: render.py environment|manual BINARY")
    print(environment_file(sys.argv[2]) if sys.argv[1] == "environment" else manual(sys.argv[2]))
