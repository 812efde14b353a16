"""Anchor for attune-bench: Bumble's ATT codec on the same PDUs, in the same run.

Prints one JSON object: {"decode": {name: pdus_per_sec}}. Only decoding is measured:
Bumble keeps the bytes a PDU was parsed from, so re-serialising one is not real encoding work.
Run with the interop venv's python (Scripts/interop/setup.sh creates it).
"""
import json
import time

from bumble import att

PDUS = {
    "read_request": "0a0300",
    "read_response_20": "0b" + bytes(range(20)).hex(),
    "notification_20": "1b1400" + bytes(range(20)).hex(),
    "read_by_type_response_3x7": "0907" "02000203000" "02a" "04000205000" "12a" "0600" "0a070029" "2a",
    "find_information_response_4x16": "0501" "04000229" "05000129" "06000429" "07000029",
    "error_response": "010a03000a",
}


def rate(fn, seconds=0.3):
    n = 1000
    while True:
        start = time.perf_counter()
        for _ in range(n):
            fn()
        elapsed = time.perf_counter() - start
        if elapsed >= seconds:
            return n / elapsed
        n *= 2


def main():
    decode = {}
    for name, hexed in PDUS.items():
        raw = bytes.fromhex(hexed)
        pdu = att.ATT_PDU.from_bytes(raw)
        assert bytes(pdu) == raw, name
        decode[name] = round(rate(lambda: att.ATT_PDU.from_bytes(raw)))
    print(json.dumps({"decode": decode}))


if __name__ == "__main__":
    main()
