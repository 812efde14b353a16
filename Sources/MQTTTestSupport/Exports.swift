// The Bumble venv check and lab launcher moved to BumbleTestSupport; re-exported so that
// `import MQTTTestSupport` still brings them to the gateway and CLI tests.
@_exported import BumbleTestSupport
