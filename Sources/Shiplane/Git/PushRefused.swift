import Foundation
internal import Git

/// The remote refused refs of a release push (a hook, a protected branch, a ref another run
/// pushed first): which it refused and why, which it accepted, and what it has instead.
package struct PushRefused: ReportableError {
    /// The remote's name.
    package var remote: String
    /// The refs it accepted (full names).
    package var accepted: [String]
    /// The refs it refused (full names), with the reason it gave.
    package var refused: [(ref: String, reason: String)]
    /// The commit each refused ref names on the remote now, when it has it; nil when the remote
    /// could not be asked.
    package var remoteHas: [String: String]?
    /// What the remote's hooks said (`remote: …` lines in git's output).
    package var remoteSaid: [String]

    init(remote: String, accepted: [String], refused: [(String, String)], remoteHas: [String: ObjectID]?, remoteSaid: [String]) {
        self.remote = remote
        self.accepted = accepted
        self.refused = refused.map { (ref: $0.0, reason: $0.1) }
        self.remoteHas = remoteHas?.mapValues(\.short)
        self.remoteSaid = remoteSaid
    }

    /// `refs/heads/main` → `main`, `refs/tags/v1.2.0` → `v1.2.0`.
    static func shortName(_ ref: String) -> String {
        for prefix in ["refs/heads/", "refs/tags/"] where ref.hasPrefix(prefix) { return String(ref.dropFirst(prefix.count)) }
        return ref
    }

    /// What the run is past its point of no return for, when the remote accepted some refs.
    var pointOfNoReturn: String {
        "pushed \(accepted.map(Self.shortName).joined(separator: ", ")) to \(remote); "
            + "\(remote) refused \(refused.map { Self.shortName($0.ref) }.joined(separator: ", "))"
    }

    package var message: String {
        let names = refused.map { "\(Self.shortName($0.ref)) (\($0.reason))" }.joined(separator: ", ")
        guard !accepted.isEmpty else { return "\(remote) refused the push: \(names); nothing was published" }
        return "\(remote) accepted \(accepted.map(Self.shortName).joined(separator: ", ")) but refused \(names)"
    }

    package var info: [(key: String, value: String)] {
        var facts = refused.map { refusal in
            guard let remoteHas else { return (key: "refused", value: "\(refusal.ref): \(refusal.reason)") }
            let now = remoteHas[refusal.ref].map { "\(remote) has it at \($0)" } ?? "\(remote) does not have it"
            return (key: "refused", value: "\(refusal.ref): \(refusal.reason); \(now)")
        }
        facts += accepted.map { (key: "accepted", value: $0) }
        facts += remoteSaid.map { (key: "\(remote) said", value: $0) }
        return facts
    }

    package var suggestion: String? {
        guard accepted.isEmpty else {
            return "\(remote) has what it accepted, so the release is past its point of no return: once \(remote) accepts the rest "
                + "(branch protection, hooks), `shiplane resume` pushes it and finishes the release; `shiplane rollback` keeps what \(remote) has"
        }
        if refused.contains(where: { remoteHas?[$0.ref] != nil && $0.ref.hasPrefix("refs/tags/") }) {
            return "another release took this tag on \(remote) first: fetch (`git fetch --tags \(remote)`) and release again"
        }
        return "the run was rolled back: let \(remote) accept the push (branch protection, hooks) and run the release again"
    }
}
