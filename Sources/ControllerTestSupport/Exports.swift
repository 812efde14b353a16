// The waits every test target shares (hangGuard, within, eventually, offPool); re-exported so
// `import ControllerTestSupport` still brings them to the tests that wait on a controller.
@_exported import WaitTestSupport
