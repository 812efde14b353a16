// swift-tools-version:6.0
import PackageDescription

// Layers point downward only (Docs/architecture.md draws the graph):
//   AttuneCLI, AttuneBench, KernelLabProbe   executables
//   GatewayCore                              the gateway's decisions as sans-I/O values (on BluetoothCore only)
//   Attune                                   public API (managers, lifecycle, store; no sockets or threads);
//                                            serves captures (CapturedPeripheral) and replays them live
//   Transport                                the backends (kernel, userland host, memory radio) behind
//                                            ATTLink/ControllerBackend, kernel sockets, userland host,
//                                            and the vocabulary they report in (Advertisement, AttuneError,
//                                            ManagerState...), which Attune re-exports
//   Replay                                   capture replay, conformance vector runner
//   Conformance                              the GATT server-role tester of `conformance --against` (sans-I/O)
//   Capture                                  capture formats, HCI → ACL → L2CAP → ATT extraction
//   GATT            ATTPresentation  SMP     engines + attribute database; PDU fields and JSON;
//                                            Security Manager (PDUs, toolbox, sans-I/O pairing)
//   ATT             HCI                      codec + bearer; commands, events, ACL, L2CAP
//   SensorDecoding                           gateway decoders: BTHome, iBeacon, Eddystone, characteristic values
//   BluetoothCrypto                          AES-128, AES-CMAC, AES-CCM, P-256 ECDH, random bytes (libcrypto)
//   EventLoop (on CEpoll)                    KernelEventLoop: one epoll thread for every descriptor, its timers
//   BluetoothCore                            UUIDs, addresses, handles, opcodes, ByteReader, MonotonicTime;
//                                            the shared mechanisms: Backoff, DeadlineTimer, BoundedBuffer
//   GatewayConfig (on BluetoothCore, CYAML)  the gateway's YAML config (libyaml) as typed, validated values
// Test support, for test targets and AttuneBench only (never a product):
//   GATTTestSupport        on GATT: in-memory client–server pipe, synthetic databases
//   ControllerTestSupport  on Transport: scripted H4 controllers on UNIX sockets (init
//                          answers, floods, a Heart Rate ATT server), for host-side tests
//   HexTestSupport         on nothing: `bytes("…")`, test vectors written as hex
//   WaitTestSupport        on nothing: the hang guard, `within`, `eventually`, `offPool` and `ChildTestRun`, for every test target
//   BumbleTestSupport      on nothing: the Bumble venv check and the one launcher of the interop labs
//   FixtureTestSupport     on nothing: where Fixtures/ is (captures, conformance vectors and databases)
//   CaptureTestSupport     on Capture: captures read and written in memory, and the one tshark runner
//   InteropTestSupport     on ControllerTestSupport, BumbleTestSupport, CaptureTestSupport: the interop lab
//                          (Scripts/interop/lab.py), the check of its session captures, and
//                          the process's one flood turn (FloodTurn, a Testing trait)
// Capture does not import GATT; HCI does not import ATT or SMP (Transport runs the Security
// Manager above the userland host). SMP imports only BluetoothCore
// and BluetoothCrypto (not ATT or HCI); GATT takes AES-CMAC from BluetoothCrypto and
// re-exports it.
// CBlueZ (libbluetooth) and CCrypto (libcrypto) are Debian system libraries; CEpoll names glibc's
// epoll, eventfd and timerfd headers, which Swift's Glibc module leaves out.
//   MQTTClient on EventLoop and CMosquitto (libmosquitto); MQTTTestSupport: a real broker for tests
let package = Package(
    name: "Attune",
    products: [
        .library(name: "Attune", targets: ["Attune"]),
        .library(name: "BluetoothCore", targets: ["BluetoothCore"]),
        .library(name: "BluetoothCrypto", targets: ["BluetoothCrypto"]),
        .library(name: "ATT", targets: ["ATT"]),
        .library(name: "ATTPresentation", targets: ["ATTPresentation"]),
        .library(name: "GATT", targets: ["GATT"]),
        .library(name: "HCI", targets: ["HCI"]),
        .library(name: "SMP", targets: ["SMP"]),
        .library(name: "Capture", targets: ["Capture"]),
        .library(name: "Replay", targets: ["Replay"]),
        .library(name: "Conformance", targets: ["Conformance"]),
        .library(name: "Transport", targets: ["Transport"]),
        .library(name: "GatewayCore", targets: ["GatewayCore"]),
        .library(name: "SensorDecoding", targets: ["SensorDecoding"]),
        .library(name: "GatewayConfig", targets: ["GatewayConfig"]),
        .library(name: "MQTTClient", targets: ["MQTTClient"]),
        .library(name: "EventLoop", targets: ["EventLoop"]),
        .executable(name: "attune", targets: ["AttuneCLI"]),
        .executable(name: "attune-bench", targets: ["AttuneBench"]),
    ],
    targets: [
        .systemLibrary(
            name: "CBlueZ",
            pkgConfig: "bluez",
            providers: [.apt(["libbluetooth-dev"])]
        ),
        .systemLibrary(
            name: "CCrypto",
            pkgConfig: "libcrypto",
            providers: [.apt(["libssl-dev"])]
        ),
        // libyaml, the YAML parser the gateway's config loader runs on.
        .systemLibrary(
            name: "CYAML",
            pkgConfig: "yaml-0.1",
            providers: [.apt(["libyaml-dev"])]
        ),
        // Debian's libmosquitto, the MQTT 5 client library under MQTTClient.
        .systemLibrary(
            name: "CMosquitto",
            pkgConfig: "libmosquitto",
            providers: [.apt(["libmosquitto-dev"])]
        ),
        // glibc's epoll, eventfd and timerfd headers; links nothing beyond libc.
        .systemLibrary(name: "CEpoll"),
        .target(name: "CAllocCounter"),
        // KernelEventLoop: one epoll thread that serves every descriptor, with its timers.
        .target(name: "EventLoop", dependencies: ["CEpoll"]),
        .target(name: "BluetoothCore"),
        // AES-128, AES-CMAC, P-256 ECDH and random bytes through libcrypto, for GATT and SMP.
        .target(name: "BluetoothCrypto", dependencies: ["BluetoothCore", "CCrypto"]),
        // Advertisement (BTHome, iBeacon, Eddystone, raw) and characteristic value decoders for the gateway.
        .target(name: "SensorDecoding", dependencies: ["BluetoothCore", "BluetoothCrypto"]),
        .target(name: "ATT", dependencies: ["BluetoothCore"]),
        // PDUs as named fields and JSON, for decoders, reports and the CLI; not part of the codec.
        .target(name: "ATTPresentation", dependencies: ["ATT"]),
        .target(name: "GATT", dependencies: ["ATT", "BluetoothCrypto"]),
        .target(name: "HCI", dependencies: ["BluetoothCore"]),
        // The Security Manager (Vol 3 Part H): PDU codec, toolbox, sans-I/O pairing in both roles.
        .target(name: "SMP", dependencies: ["BluetoothCore", "BluetoothCrypto"]),
        // Our client and server over an in-memory link, and synthetic databases: for tests and benchmarks.
        .target(name: "GATTTestSupport", dependencies: ["GATT", "ATT"]),
        // Scripted H4 controllers that tests and benchmarks run the userland host against.
        .target(name: "ControllerTestSupport", dependencies: ["BluetoothCore", "Transport", "WaitTestSupport"]),
        // How long a test waits before it calls a wait a hang, the waits on it, and blocking work off the pool.
        .target(name: "WaitTestSupport"),
        // Bumble's venv and the launcher of Scripts/interop's labs, for tests and the bench.
        .target(name: "BumbleTestSupport"),
        // Test vectors as the specs print them (hex), for the test targets that check against them.
        .target(name: "HexTestSupport"),
        // The one locator of Fixtures/, for the test targets that read captures and vectors.
        .target(name: "FixtureTestSupport"),
        // Captures read and written in memory, and tshark (the independent decoder) run on a capture,
        // for the tests that check our decoding against it.
        .target(name: "CaptureTestSupport", dependencies: ["Capture", "ATT"]),
        // One run of the interop lab and the check of its captures, for the Bumble interop suites.
        .target(name: "InteropTestSupport", dependencies: ["BumbleTestSupport", "ControllerTestSupport", "Capture", "HCI",
                                                           "CaptureTestSupport"]),
        .target(name: "Capture", dependencies: ["ATT", "HCI"]),
        .target(name: "Replay", dependencies: ["Capture", "GATT", "ATT", "ATTPresentation", "HCI"]),
        // `attune conformance --against`: the sans-I/O GATT server-role tester (Attune as the
        // lower tester, a device as the IUT) and its test catalog; no capture or HCI needed.
        .target(name: "Conformance", dependencies: ["ATT", "GATT", "BluetoothCore"]),
        .target(name: "Transport", dependencies: ["ATT", "HCI", "SMP", "Capture", "CBlueZ", "EventLoop"]),
        .target(name: "Attune", dependencies: ["ATT", "GATT", "HCI", "Capture", "Replay", "Transport"]),
        // The gateway's scheduler, pool, availability, watchdog, scan health and lease: decisions, no I/O.
        .target(name: "GatewayCore", dependencies: ["BluetoothCore"]),
        // `attune gateway`: the BLE to MQTT daemon, on the public API (Attune) and the gateway modules.
        .target(name: "Gateway", dependencies: ["Attune", "BluetoothCore", "GatewayConfig", "GatewayCore", "SensorDecoding",
                                                "MQTTClient"]),
        .executableTarget(name: "AttuneCLI", dependencies: ["Attune", "Gateway", "GatewayConfig", "MQTTClient", "ATT", "GATT", "HCI", "Capture", "Replay", "Transport", "ATTPresentation", "Conformance"]),
        .executableTarget(name: "AttuneBench", dependencies: ["ATT", "GATT", "HCI", "Capture", "Transport", "Attune", "GATTTestSupport", "ControllerTestSupport", "ATTPresentation", "CAllocCounter", "Gateway", "GatewayConfig", "MQTTClient", "MQTTTestSupport", "SMP", "BluetoothCrypto", "EventLoop", "BumbleTestSupport"]),
        // Runs inside the kernel lab VM (Scripts/kernel-lab.sh): our central on hci0 against our peripheral on hci1.
        .executableTarget(name: "KernelLabProbe", dependencies: ["Transport", "HCI", "ATT", "GATT", "Attune", "EventLoop"]),
        // The gateway's MQTT 5 client over libmosquitto, driven from KernelEventLoop.
        .target(name: "MQTTClient", dependencies: ["BluetoothCore", "CMosquitto", "EventLoop"]),
        // A real Debian mosquitto broker on 127.0.0.1 and a random port, for MQTT tests.
        .target(name: "MQTTTestSupport", dependencies: ["MQTTClient", "BumbleTestSupport", "WaitTestSupport"]),
        // MQTTClient against the real broker: round trips, will, restart, queue bound, keepalive.
        .testTarget(name: "MQTTClientTests", dependencies: ["MQTTClient", "MQTTTestSupport", "WaitTestSupport"]),
        // The gateway against the real mosquitto broker and peripherals on the memory radio.
        .testTarget(name: "GatewayTests", dependencies: ["Gateway", "GatewayConfig", "MQTTClient", "MQTTTestSupport", "Attune",
                                                         "WaitTestSupport"]),
        // The shared mechanisms: backoff, deadline timer, bounded buffer.
        .testTarget(name: "BluetoothCoreTests", dependencies: ["BluetoothCore"]),
        .testTarget(name: "ATTTests", dependencies: ["ATT", "ATTPresentation", "HexTestSupport", "FixtureTestSupport"], resources: []),
        .testTarget(name: "GATTTests", dependencies: ["GATT", "GATTTestSupport", "ATT", "HexTestSupport", "FixtureTestSupport"]),
        .testTarget(name: "BluetoothCryptoTests", dependencies: ["BluetoothCrypto", "HexTestSupport"]),
        .testTarget(name: "SMPTests", dependencies: ["SMP", "BluetoothCrypto", "BluetoothCore", "HexTestSupport"]),
        .testTarget(name: "HCITests", dependencies: ["HCI", "ATT"]),
        // Capture formats and ATT extraction, against tshark; below Replay and Transport, it needs neither.
        .testTarget(name: "CaptureTests", dependencies: ["Capture", "HCI", "ATT", "WaitTestSupport", "FixtureTestSupport",
                                                         "CaptureTestSupport"]),
        // Capture replay, conversations and the conformance vector files (runner, reader, ranges).
        .testTarget(name: "ReplayTests", dependencies: ["Replay", "Capture", "HCI", "ATT", "ATTPresentation", "GATT",
                                                        "HexTestSupport", "FixtureTestSupport", "CaptureTestSupport",
                                                        "WaitTestSupport"]),
        // The loop on socketpairs and pipes: readiness, watches, timers, shutdown.
        .testTarget(name: "EventLoopTests", dependencies: ["EventLoop", "WaitTestSupport"]),
        // The backends below the public API (kernel sockets, userland host, pairing, scans, floods),
        // and the GATT engines over the userland host against Bumble.
        .testTarget(name: "TransportTests", dependencies: ["Transport", "EventLoop", "HCI", "ATT", "GATT", "SMP", "Capture", "ControllerTestSupport",
                                                           "BumbleTestSupport", "WaitTestSupport", "InteropTestSupport"]),
        // The public API (Attune) against Bumble: centrals, peripherals, pairing, bonds, live replay.
        .testTarget(name: "InteropTests", dependencies: ["Attune", "Transport", "Capture", "HCI", "Replay", "ControllerTestSupport",
                                                         "InteropTestSupport"]),
        // Runs the built `attune` executable (swift test builds every product first).
        .testTarget(name: "AttuneCLITests", dependencies: ["Capture", "ATT", "HCI", "ControllerTestSupport", "MQTTClient", "MQTTTestSupport",
                                                           "CaptureTestSupport"]),
        // GatewayCore's rules, driven by injected time and seeded jitter.
        .testTarget(name: "GatewayCoreTests", dependencies: ["GatewayCore", "BluetoothCore"]),
        // Decoders against the published BTHome, Eddystone and SIG sample payloads.
        .testTarget(name: "SensorDecodingTests", dependencies: ["SensorDecoding", "BluetoothCore", "HexTestSupport"]),
        // The gateway's config file: bounded YAML loading, typed validation with paths, plan and reload diff.
        .target(name: "GatewayConfig", dependencies: ["BluetoothCore", "CYAML", "SensorDecoding"]),
        .testTarget(name: "GatewayConfigTests", dependencies: ["GatewayConfig", "BluetoothCore", "SensorDecoding"]),
        // The server-role conformance tester against our server engine, healthy and with one rule broken.
        .testTarget(name: "ConformanceTests", dependencies: ["Conformance", "GATT", "ATT", "BluetoothCore", "GATTTestSupport",
                                                              "WaitTestSupport"]),
        // The public API, on the memory radio and on scripted H4 controllers (floods, adapter reset, bonds).
        .testTarget(name: "AttuneTests", dependencies: ["Attune", "Transport", "GATT", "ATT", "HCI", "Capture", "Replay",
                                                        "WaitTestSupport", "ControllerTestSupport", "InteropTestSupport"]),
    ],
    swiftLanguageModes: [.v6]
)
