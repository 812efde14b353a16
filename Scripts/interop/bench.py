#!/usr/bin/env python3
"""Measures our userland host and Bumble's host on the same work in the same run.

Starts lab.py with two Bumble devices. Our host (attune-bench --interop) connects to
device 0 over an emulated controller; Bumble's host on device 1 then does the same
reads and writes against device 0. Prints both, as text and as one JSON line.
"""

import json
import subprocess
import sys
import time
from pathlib import Path

here = Path(__file__).resolve().parent
bench_binary = sys.argv[1]
reads = int(sys.argv[2]) if len(sys.argv) > 2 else 500
writes = int(sys.argv[3]) if len(sys.argv) > 3 else 2000
size = 200

# Devices: 0 for our host's raw ATT run, 1 is Bumble's client (of device 0, after us),
# 2 for our public-API run; one host controller per run of ours.
lab = subprocess.Popen([sys.executable, str(here / "lab.py"), "--role", "peripheral", "--devices", "3",
                        "--host-controllers", "2", "--lifetime", "300"], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)


def next_event(name: str, deadline: float) -> dict:
    while time.monotonic() < deadline:
        line = lab.stdout.readline()
        if not line:
            raise SystemExit(f"lab ended before '{name}'")
        event = json.loads(line)
        if event.get("event") == name:
            return event
    raise SystemExit(f"no '{name}' in time")


try:
    ready = next_event("ready", time.monotonic() + 30)
    handles = ready["handles"][0]
    def run_ours(port: int, device: int, extra: list[str]) -> dict:
        ours = subprocess.run([bench_binary, "--interop", f"tcp:127.0.0.1:{port}",
                               "--peer", ready["devices"][device]["address"],
                               "--read-handle", str(handles["by_uuid"]), "--write-handle", str(handles["long_write"]),
                               "--reads", str(reads), "--writes", str(writes), "--write-size", str(size), "--json"]
                              + extra, capture_output=True, text=True, timeout=240)
        if ours.returncode != 0:
            raise SystemExit(f"attune-bench failed: {ours.stderr}")
        return json.loads(ours.stdout.strip().splitlines()[-1])

    attune = run_ours(ready["ports"][0], 0, [])
    api = run_ours(ready["ports"][1], 2, ["--api"])

    lab.stdin.write(f"bench-read {handles['by_uuid']} {reads}\n")
    lab.stdin.flush()
    bumble_read = next_event("result", time.monotonic() + 240)
    lab.stdin.write(f"bench-write {handles['long_write']} {writes} {size}\n")
    lab.stdin.flush()
    bumble_write = next_event("result", time.monotonic() + 240)
    if not bumble_read.get("ok") or not bumble_write.get("ok"):
        raise SystemExit(f"bumble bench failed: {bumble_read} {bumble_write}")

    print(f"ATT Read round trip ({reads} reads of a 14-byte value, MTU 247):")
    print(f"  attune host, raw ATT:   median {attune['read_median_us']:.0f} us, p99 {attune['read_p99_us']:.0f} us")
    print(f"  attune public API:      median {api['read_median_us']:.0f} us, p99 {api['read_p99_us']:.0f} us")
    print(f"  bumble host:            median {bumble_read['median_us']:.0f} us, p99 {bumble_read['p99_us']:.0f} us")
    print(f"Write Without Response ({writes} x {size} B, then one read as a barrier):")
    print(f"  attune host, raw ATT:   {attune['write_bytes_per_second']:.0f} B/s ({attune['writes_per_second']:.0f} writes/s)")
    print(f"  attune public API:      {api['write_bytes_per_second']:.0f} B/s ({api['writes_per_second']:.0f} writes/s)")
    print(f"  bumble host:            {bumble_write['bytes_per_second']:.0f} B/s ({bumble_write['writes_per_second']:.0f} writes/s)")
    print(json.dumps({"attune": attune, "attune_api": api, "bumble": {"read": bumble_read, "write": bumble_write}}))
finally:
    try:
        lab.stdin.write("quit\n")
        lab.stdin.flush()
    except Exception:
        pass
    try:
        lab.wait(timeout=5)
    except subprocess.TimeoutExpired:
        lab.kill()
