import ATT
import Capture

/// The known cause of a divergence between our engine and the captured peer. Replay
/// finds it; the CLI (or any caller) renders it.
public enum DivergenceCause: Hashable, Sendable {
    // As server.

    /// The captured server refused a Prepare Write of `length` bytes at `offset` with
    /// Invalid Attribute Value Length although offset + length is within 512: BlueZ
    /// counts the 4 header bytes of Prepare Write toward the limit.
    case prepareWriteHeaderCounted(offset: UInt16, length: Int)
    /// The captured server's write callback rejected a later chunk of a long write with
    /// Invalid Offset (btgatt-server's Device Name truncates at the offset); the spec
    /// queues prepared writes and checks offsets at Execute Write.
    case longWriteRejectedAtOffset(UInt16)
    /// An earlier divergence (at `record`) left `handle` with a different value.
    case followsDivergence(record: Int, handle: AttributeHandle)
    /// `handle` was written at `record` and both servers accepted it, but the captured
    /// server later answered another value: its application does not keep the write.
    case writeNotKept(handle: AttributeHandle, record: Int)
    /// The captured server's database changed (Service Changed indicated at `record`);
    /// the replayed database is the one the capture showed first.
    case databaseChanged(serviceChangedAt: Int)
    /// The capture never revealed `handle`, so a database rebuilt from it cannot serve it.
    case notInRebuiltDatabase(AttributeHandle)
    /// The captured server's application rejected a written value with this error; a
    /// replayed attribute accepts any value up to its maximum length.
    case applicationRejectedValue(ATTErrorCode)
    /// The captured server notified (or indicated) `handle` although its characteristic
    /// declaration does not have that property; ours follows the declaration.
    case pushNotDeclared(handle: AttributeHandle, indication: Bool, properties: UInt8)

    // As client.

    /// Our client continues Read Using Characteristic UUID after the first response, to
    /// collect every characteristic with the UUID in the range; the captured client
    /// stopped after one response.
    case readUsingUUIDContinues
    /// The captured server refused a prepared part; our client then cancels the queued
    /// writes where the captured client executed the accepted parts.
    case refusedPartCancelsQueue

    // Against a live server.

    /// The value read belongs to a characteristic that notifies or indicates
    /// (`properties`): live data, which the device measured anew since the capture.
    case valueIsLive(handle: AttributeHandle, properties: UInt8)
    /// Both servers refused the write of `handle` at `record`, yet the captured server's
    /// value changed: it applied the prepared parts it accepted as they came (BlueZ's
    /// write callbacks run at Prepare Write); ours queues them and applied none.
    case refusedWriteChangedValue(record: Int, handle: AttributeHandle)
}
