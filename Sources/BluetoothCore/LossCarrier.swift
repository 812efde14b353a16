/// How an element type tells its consumer that elements were lost before it.
public struct LossCarrier<Element>: Sendable {
    /// Adds a count of elements lost just before this one; false, changing nothing, when
    /// this element cannot carry one (the count then waits for the next that can).
    @usableFromInline let carry: @Sendable (inout Element, Int) -> Bool
    /// The count an element already carries, handed on when it is dropped itself.
    @usableFromInline let carried: @Sendable (Element) -> Int
    /// An element that stands for a count of losses, for types that have one.
    @usableFromInline let marker: @Sendable (Int) -> Element?

    /// - Parameters:
    ///   - carry: adds a count to an element, or returns false when it cannot.
    ///   - carried: the count an element carries (0 when it cannot carry one).
    ///   - marker: an element standing for the losses, or nil.
    public init(carry: @escaping @Sendable (inout Element, Int) -> Bool = { _, _ in false },
                carried: @escaping @Sendable (Element) -> Int = { _ in 0 },
                marker: @escaping @Sendable (Int) -> Element? = { _ in nil }) {
        self.carry = carry
        self.carried = carried
        self.marker = marker
    }

    /// The type cannot say: counts wait for ``BoundedBuffer/takeLost()``.
    public static var none: LossCarrier { LossCarrier() }
}
