import Foundation
internal import Git

/// One ref of a compare-and-swap push: the remote's `destination` is set to the local `source`
/// (nil deletes it) only while it still holds `expected` (nil: the remote has no such ref).
struct RefSwap {
    /// The local ref sent; nil deletes `destination`.
    var source: String?
    /// The remote's ref.
    var destination: String
    /// The value the remote's ref must hold for the swap; nil: it must not exist.
    var expected: ObjectID?
    /// Whether `expected` is checked; false for a ref sent whatever the remote holds.
    var checked = true
    /// Whether the update is forced (`+`): the remote may take a value that is not a fast-forward.
    var force = true

    /// The refspec `pushReportingRefs` sends.
    var refspec: String {
        guard let source else { return ":" + destination }
        return (force ? "+" : "") + source + ":" + destination
    }

    /// `destination` deleted while it still holds `expected`.
    static func delete(_ destination: String, expected: ObjectID?) -> RefSwap {
        RefSwap(source: nil, destination: destination, expected: expected)
    }
}

/// What a compare-and-swap push came to: the refusal is a value, not an error.
enum SwapResult: Equatable {
    /// The remote took every ref.
    case swapped(PushOutcome)
    /// The remote refused some ref (`outcome.refused`; receive-pack also refuses a ref that moved
    /// between the look and the update, since it updates a ref only from the old value sent).
    case refused(PushOutcome)
    /// The remote's `ref` held `found` (nil: no such ref), not the value expected: nothing was sent.
    case moved(ref: String, found: ObjectID?)
}

extension Repository {
    /// Pushes `swaps` to `remote` in one push, each ref only from the value it expects: checked on
    /// the push's own connection before anything is sent (a ref that moved sends nothing:
    /// `.moved`), and git's receive-pack updates a ref only from the old value the push names.
    /// `beforeSending` runs right before the upload (a step records its effect there).
    /// - Throws: `GitFailure` when the remote cannot be reached or refuses the credentials, or
    ///   what `beforeSending` throws.
    func compareAndSwap(
        remote: String, _ swaps: [RefSwap], credentials: PushCredentials, beforeSending: () throws -> Void = {}
    ) throws -> SwapResult {
        struct Moved: Error { var ref: String; var found: ObjectID? }
        do {
            let outcome = try pushReportingRefs(remote: remote, refspecs: swaps.map(\.refspec), credentials: credentials, beforeChecks: { updates in
                for swap in swaps where swap.checked {
                    let found = updates.first(where: { $0.remoteRef == swap.destination })?.remote
                    if found != swap.expected { throw Moved(ref: swap.destination, found: found) }
                }
            }, beforeSending: { _ in try beforeSending() })
            return outcome.refused.isEmpty ? .swapped(outcome) : .refused(outcome)
        } catch let moved as Moved {
            return .moved(ref: moved.ref, found: moved.found)
        }
    }
}
