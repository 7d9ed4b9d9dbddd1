import Foundation

/// What the remote answered for each ref of a push.
public struct PushOutcome: Sendable, Equatable {
    /// A ref the remote refused, with its reason as the remote gave it (`pre-receive hook declined`).
    public struct Refusal: Sendable, Equatable {
        public var ref: String
        public var reason: String
    }

    let operation: String
    /// The remote refs that now hold what was pushed, in refspec order.
    public var accepted: [String]
    /// The remote refs it refused, with why.
    public var refused: [Refusal]
    /// What the remote's hooks wrote during the push (git shows these as `remote: …`), line by line.
    public var remoteMessages: [String] = []

    /// The error `push` throws for the refusals.
    public var rejection: GitError {
        GitError(code: .rejected, operation: operation,
                 message: "the remote rejected " + refused.map { "\($0.ref) (\($0.reason))" }.joined(separator: ", "))
    }
}
