// The public API speaks in addresses, UUIDs, ATT error codes and GATT definitions from
// the lower layers; re-exporting them spares every user extra imports. Attune's own
// `Service`, `Characteristic` and `Descriptor` (the remote tree, like CBService) shadow
// GATT's aliases of the same names for local definitions.
@_exported import ATT
@_exported import GATT
@_exported import HCI
// `tcp:HOST:PORT`, `unix:PATH`, `serial:PATH[@BAUD]` and `user:hciN`, as the userland host
// opens them: one type for the CLI, the public API and the host.
@_exported import enum Transport.H4Endpoint
// The backends live in Transport, below the API: the controller a manager drives, the
// in-memory radio and its recorder, and the vocabulary they report in (advertisements,
// errors, disconnect reasons, manager states). One name each, so `import Attune` gives
// users what it always did and none of Transport's sockets and hosts.
@_exported import enum Transport.BluetoothTransport
@_exported import struct Transport.AdvertisingParameters
@_exported import class Transport.MemoryRadio
@_exported import class Transport.MemorySnoop
@_exported import enum Transport.MemoryTapEvent
@_exported import struct Transport.Advertisement
@_exported import struct Transport.AdvertisingFlags
// The scan's duplicate filter: its limits are `scan(deviceLimit:)`'s defaults, and it
// filters reports the same way for a caller driving a host of its own.
@_exported import struct Transport.ScanTable
@_exported import class Transport.ScanFilter
@_exported import enum Transport.PeripheralIdentifier
@_exported import struct Transport.PairingKeys
@_exported import struct Transport.HostIdentity
@_exported import enum Transport.ResolvablePrivateAddress
@_exported import enum Transport.AttuneError
@_exported import enum Transport.DisconnectReason
@_exported import enum Transport.ManagerState
@_exported import enum Transport.ManagerStateCause
@_exported import struct Transport.ManagerStatus
// Pairing: what our side offers, and the agent that answers for the user.
@_exported import struct Transport.PairingConfiguration
@_exported import enum Transport.PairingIOCapabilities
@_exported import class Transport.PairingAgent
@_exported import struct Transport.PairingRequest
// The capture the managers' `snoop:` option writes, so users open one without importing
// Capture themselves.
@_exported import class Capture.SnoopFile
// A recording served again (`CapturedPeripheral`): what it serves and why it cannot.
@_exported import struct Replay.CapturedServerScript
@_exported import struct Replay.CapturedPush
@_exported import enum Replay.ReplayError
// A captured central's procedures run against a live peripheral (`LiveReplay`).
@_exported import struct Replay.ATTConversation
@_exported import struct Replay.CapturedProcedure
@_exported import struct Replay.CapturedProcedureRun
@_exported import enum Replay.DivergenceCause
