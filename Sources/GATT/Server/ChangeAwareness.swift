/// Where a client stands in robust caching (Vol 3 Part G §2.5.2.1).
///
/// One value instead of two flags: "told it is out of sync" only exists while the client
/// is change-unaware, and becoming aware again forgets it.
enum ChangeAwareness: Sendable {
    /// The client knows the current database.
    case aware
    /// The database changed since the client last knew it; its next request gets
    /// Database Out Of Sync.
    case unaware
    /// The client got Database Out Of Sync; its next request makes it change-aware.
    case toldOutOfSync
}
