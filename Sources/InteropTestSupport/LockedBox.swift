import Synchronization

/// A mutex-protected value that closures on other threads can share by reference.
public final class LockedBox<Value: Sendable>: Sendable {
    public let value: Mutex<Value>
    public init(_ initial: Value) { value = Mutex(initial) }
}
