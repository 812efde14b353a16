#!/usr/bin/env python3
"""Attune gateway lab: one emulated controller for our host, three Bumble peers for a gateway.

The peers, each on its own emulated controller on the shared virtual link (so one can
vanish without touching the others' links, BUMBLE-LAB.md trap 11):
  hr       Heart Rate service; 2A37 notifies [0x01, counter u16le] every --notify-ms while a
           link has it subscribed. The counter runs over the whole lab, so every value is unique.
  battery  Battery service; 2A19 read, the level counting down on every read.
  control  a 128-bit service with one writable (and readable) characteristic.

JSON lines on stdout (`ready` first, with the port for our host and the peers' addresses),
each with `t`, Python's time.monotonic() (CLOCK_MONOTONIC, the clock the Swift side reads):
  connected / disconnected   peer, link (a number per link of that peer), reason
  cccd                       peer, link, value (hex): every write of the 2A37 CCCD
  other_cccd                 peer, link, uuid, value: a write of another CCCD (Service Changed)
  notified                   peer, link, value: one Heart Rate Measurement sent
  read                       peer, value: the battery level a read returned
  written                    peer, value (hex): bytes written to the control characteristic
  advertising                peer: its advertising (re)started; `t` is taken just before
Commands on stdin:
  vanish NAME   the peer goes away as a device out of range does: its links end with 0x08
                (supervision timeout) on both sides, it stops advertising and its controller
                leaves the link
  return NAME   the peer comes back as a rebooted device: a fresh controller, host and GATT
                server at the same address, advertising again
  quit          ends the lab (so does closing stdin, or --lifetime)
"""

import argparse
import asyncio
import fcntl
import json
import os
import signal
import socket
import sys
import tempfile
import time

from bumble import gatt, hci, ll
from bumble.controller import Controller
from bumble.core import AdvertisingData
from bumble.device import Device, DeviceConfiguration
from bumble.host import Host
from bumble.link import LocalLink
from bumble.transport.common import AsyncPipeSink
from bumble.transport.tcp_server import open_tcp_server_transport_with_socket

CONTROL_SERVICE_UUID = "7a7e0030-5d4c-4f8e-9a64-0c3f1e2b6a10"
CONTROL_UUID = "7a7e0031-5d4c-4f8e-9a64-0c3f1e2b6a10"
PEERS = {"hr": 1, "battery": 2, "control": 3}
SUPERVISION_TIMEOUT = 0x08


def emit(event: str, **fields) -> None:
    """Writes one JSON line on stdout, flushed, because the test reads it live."""
    fields["event"] = event
    fields["t"] = round(time.monotonic(), 6)
    sys.stdout.write(json.dumps(fields) + "\n")
    sys.stdout.flush()


class Peer:
    """One Bumble device and the controller it runs on; `build` makes a fresh pair."""

    def __init__(self, lab, name: str, index: int) -> None:
        self.lab = lab
        self.name = name
        self.address = hci.Address(f"F0:A7:7E:00:01:{index:02X}", hci.Address.RANDOM_DEVICE_ADDRESS)
        self.controller = None
        self.device = None
        self.links = 0
        self.battery = 100

    async def build(self) -> None:
        self.controller = Controller(f"P-{self.name}", link=self.lab.link)
        host = Host(self.controller, AsyncPipeSink(self.controller))
        config = DeviceConfiguration(name=f"Attune-{self.name}", address=self.address)
        config.advertising_data = bytes(AdvertisingData([
            (AdvertisingData.FLAGS, bytes([0x06])),
            (AdvertisingData.COMPLETE_LOCAL_NAME, f"Attune-{self.name}".encode()),
        ]))
        device = Device(config=config, host=host)
        self.device = device
        if self.name == "hr":
            self.measurement = gatt.Characteristic(
                "2A37", gatt.Characteristic.Properties.NOTIFY, gatt.Characteristic.READABLE, b"\x01\x00\x00")
            device.add_service(gatt.Service("180D", [self.measurement]))
            device.on("characteristic_subscription", self.on_subscription)
        elif self.name == "battery":
            def read_level(_connection):
                self.battery = max(1, self.battery - 1)
                emit("read", peer=self.name, value=self.battery)
                return bytes([self.battery])
            device.add_service(gatt.Service("180F", [gatt.Characteristic(
                "2A19", gatt.Characteristic.Properties.READ, gatt.Characteristic.READABLE,
                gatt.CharacteristicValue(read=read_level))]))
        else:
            self.control_value = b""

            def write_control(_connection, value):
                self.control_value = bytes(value)
                emit("written", peer=self.name, value=bytes(value).hex())
            device.add_service(gatt.Service(CONTROL_SERVICE_UUID, [gatt.Characteristic(
                CONTROL_UUID, gatt.Characteristic.Properties.READ | gatt.Characteristic.Properties.WRITE,
                gatt.Characteristic.READABLE | gatt.Characteristic.WRITEABLE,
                gatt.CharacteristicValue(read=lambda _c: self.control_value, write=write_control))]))
        device.on("connection", self.on_connection)
        await device.power_on()
        await self.advertise()

    async def advertise(self) -> None:
        emit("advertising", peer=self.name)
        await self.device.start_advertising(
            own_address_type=hci.OwnAddressType.RANDOM, auto_restart=True,
            advertising_interval_min=20, advertising_interval_max=20)

    def on_connection(self, connection) -> None:
        self.links += 1
        connection.lab_link = self.links
        emit("connected", peer=self.name, link=self.links)
        connection.on("disconnection",
                      lambda reason: emit("disconnected", peer=self.name, link=connection.lab_link, reason=reason))

    def on_subscription(self, connection, characteristic, notify_enabled, indicate_enabled):
        # Every write of 2A37's CCCD, as it came: the test counts them per link. (The
        # client's write to Service Changed's CCCD, 0x0002, is reported apart.)
        value = (1 if notify_enabled else 0) | (2 if indicate_enabled else 0)
        if characteristic is not self.measurement:
            emit("other_cccd", peer=self.name, link=getattr(connection, "lab_link", 0),
                 uuid=str(characteristic.uuid), value=f"{value:02x}00")
            return
        emit("cccd", peer=self.name, link=getattr(connection, "lab_link", 0), value=f"{value:02x}00")
        if notify_enabled and not getattr(connection, "lab_notifying", False):
            connection.lab_notifying = True
            asyncio.ensure_future(self.notify_loop(connection))

    async def notify_loop(self, connection) -> None:
        device = self.device
        while self.device is device and connection.handle in device.connections:
            self.lab.counter = (self.lab.counter + 1) & 0xFFFF
            value = bytes([0x01]) + self.lab.counter.to_bytes(2, "little")
            try:
                await device.notify_subscriber(connection, self.measurement, value)
            except Exception:
                return
            emit("notified", peer=self.name, link=connection.lab_link, value=self.lab.counter)
            await asyncio.sleep(self.lab.args.notify_ms / 1000)

    async def vanish(self) -> None:
        controller, device = self.controller, self.device
        self.device = None
        await device.stop_advertising()
        for connection in list(controller.le_connections.values()):
            # The central's controller ends the link with a supervision timeout, and so does ours.
            connection.send_ll_control_pdu(ll.TerminateInd(SUPERVISION_TIMEOUT))
            controller.on_le_disconnected(connection, SUPERVISION_TIMEOUT)
        self.lab.link.remove_controller(controller)
        self.controller = None


class Lab:
    def __init__(self, args) -> None:
        self.args = args
        self.link = LocalLink()
        self.counter = 0
        self.peers = {name: Peer(self, name, index) for name, index in PEERS.items()}

    async def run(self) -> None:
        sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
        transport = await open_tcp_server_transport_with_socket(sock)
        Controller("H0", host_source=transport.source, host_sink=transport.sink, link=self.link)
        for peer in self.peers.values():
            await peer.build()
        emit("ready", port=port, peers={name: str(p.address).split("/")[0] for name, p in self.peers.items()})
        try:
            await asyncio.wait_for(self.serve_commands(), self.args.lifetime)
        except asyncio.TimeoutError:
            emit("lifetime_expired")

    async def serve_commands(self) -> None:
        reader = asyncio.StreamReader()
        await asyncio.get_running_loop().connect_read_pipe(
            lambda: asyncio.StreamReaderProtocol(reader), sys.stdin)
        while True:
            line = await reader.readline()
            if not line:
                return
            words = line.decode().split()
            if not words:
                continue
            if words[0] == "quit":
                return
            try:
                peer = self.peers[words[1]]
                if words[0] == "vanish" and peer.device is not None:
                    await peer.vanish()
                elif words[0] == "return" and peer.device is None:
                    await peer.build()
                else:
                    raise RuntimeError(f"cannot {words[0]} {words[1]} now")
                emit("result", command=words[0], peer=words[1], ok=True)
            except Exception as error:
                emit("result", command=words[0], ok=False, error=repr(error))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--notify-ms", type=float, default=100.0)
    parser.add_argument("--lifetime", type=float, default=300.0)
    args = parser.parse_args()
    # One Bumble lab at a time on this machine (the lock lab.py takes too).
    lock = open(os.path.join(tempfile.gettempdir(), f"attune-bumble-lab-{os.getuid()}.lock"), "w")
    fcntl.flock(lock, fcntl.LOCK_EX)
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
    try:
        asyncio.run(Lab(args).run())
    except SystemExit:
        pass


if __name__ == "__main__":
    main()
