import BluetoothCore
import Testing

/// The one backoff, in both jitter directions and with none; the random fraction is
/// injected, so every wait is predicted.
@Suite struct BackoffTests {
    @Test func growsByTheMultiplierToItsCapAndSaturates() {
        let b = Backoff(initialDelay: .milliseconds(250), maximumDelay: .seconds(30), jitter: 0)
        #expect((0..<9).map { b.delay(attempt: $0, random: 0.7) }
                == [.milliseconds(250), .milliseconds(500), .seconds(1), .seconds(2), .seconds(4), .seconds(8),
                    .seconds(16), .seconds(30), .seconds(30)])
        #expect(b.delay(attempt: Int.max, random: 0) == .seconds(30))
        #expect(b.delay(attempt: -3, random: 0) == .milliseconds(250), "a negative attempt is the first")
        let triple = Backoff(initialDelay: .seconds(1), maximumDelay: .seconds(100), multiplier: 3, jitter: 0)
        #expect((0..<5).map { triple.delay(attempt: $0, random: 0) } == [1, 3, 9, 27, 81].map { Duration.seconds($0) })
    }

    @Test func shorterOnlyJitterTakesUpToItsFractionAway() {
        let b = Backoff(initialDelay: .seconds(10), maximumDelay: .seconds(10), jitter: 0.5)
        #expect(b.delay(attempt: 0, random: 0) == .seconds(10))
        #expect(b.delay(attempt: 0, random: 0.5) == .milliseconds(7500))
        #expect(b.delay(attempt: 0, random: 1) == .seconds(5))
    }

    @Test func eitherWayJitterMovesBothWaysButNeverPastTheCap() {
        let b = Backoff(initialDelay: .seconds(10), maximumDelay: .seconds(20), jitter: 0.2, jitterDirection: .eitherWay)
        #expect(b.delay(attempt: 0, random: 0) == .seconds(8))
        #expect(b.delay(attempt: 0, random: 0.5) == .seconds(10))
        #expect(b.delay(attempt: 0, random: 1) == .seconds(12))
        #expect(b.delay(attempt: 1, random: 1) == .seconds(20), "24 s is cut to the cap")
        #expect(b.delay(attempt: 1, random: .nan) == .seconds(20), "a fraction that is not a number counts as the middle")
    }

    @Test func outOfRangeSettingsAreClamped() {
        let b = Backoff(initialDelay: .seconds(-1), maximumDelay: .seconds(-5), multiplier: 0.5, jitter: 7)
        #expect(b.initialDelay == .zero && b.maximumDelay == .zero && b.multiplier == 1 && b.jitter == 1)
        #expect(b.delay(attempt: 4, random: 0.3) == .zero)
        #expect(Backoff(jitter: .nan).jitter == 0)
        #expect(Backoff(initialDelay: .seconds(5), maximumDelay: .seconds(1)).maximumDelay == .seconds(5))
    }
}
