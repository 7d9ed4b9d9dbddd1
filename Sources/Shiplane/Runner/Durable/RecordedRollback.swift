import Foundation

/// Undoes a recorded run from its data, newest effect first, in any process.
///
/// Before the point of no return everything goes. Past it, what was there when the run passed
/// it stays (others may have it: the pushed commit and tag, the files in them), and what came
/// after is undone where it is local (a file written after the push).
public struct RecordedRollback: Sendable {
    let store: RunStore
    let workTree: String
    let environment: LaneEnvironment

    public init(store: RunStore, workTree: String, environment: LaneEnvironment = LaneEnvironment(variables: [:])) {
        self.store = store
        self.workTree = workTree
        self.environment = environment
    }

    /// What a rollback did: the record as it left it, a line per effect, what stays, what failed.
    public struct Outcome: Sendable {
        public var record: RunRecord
        public var lines: [String] = []
        public var stays: [String] = []
        public var failed: [String] = []
    }

    public func run(_ record: RunRecord) async throws -> Outcome {
        var outcome = Outcome(record: record)
        let undo = EffectUndo(store: store, workTree: workTree, environment: environment)
        for index in record.effects.indices.reversed() {
            let entry = record.effects[index]
            guard entry.status == .intended || entry.status == .done else { continue }
            if record.pointOfNoReturn != nil && !entry.afterPointOfNoReturn {
                outcome.stays.append(entry.description)
                outcome.lines.append("stays: \(Self.describe(entry)) (done before the point of no return: \(record.pointOfNoReturn ?? ""))")
                outcome.record.effects[index].status = .kept
                continue
            }
            if record.pointOfNoReturn != nil, case .githubRelease(_, _, _, let tag) = entry.effect {
                // Past the point of no return a release may be public: it stays, for resume to finish.
                let line = "the GitHub release \(tag) (past the point of no return: `shiplane resume` finishes it)"
                outcome.stays.append(line)
                outcome.lines.append("stays: " + line)
                outcome.record.effects[index].status = .kept
                continue
            }
            do {
                try await undo.undo(entry)
                outcome.lines.append("undone: \(entry.description)")
                outcome.record.effects[index].status = .undone
            } catch {
                let reason = Shiplane.describe(error)
                if case .push = entry.effect {
                    outcome.stays.append(reason)
                    outcome.lines.append("stays: \(reason)")
                    outcome.record.effects[index].status = .kept
                } else if case .external = entry.effect {
                    outcome.stays.append(reason)
                    outcome.lines.append("stays: \(reason)")
                    outcome.record.effects[index].status = .kept
                } else {
                    outcome.failed.append("\(entry.description): \(reason)")
                    outcome.lines.append("kept: \(entry.description): \(reason)")
                }
            }
        }
        return outcome
    }

    static func describe(_ entry: RecordedEffect) -> String {
        switch entry.effect {
        case .push(let remote, let refs): "pushed \(refs.joined(separator: ", ")) to \(remote)"
        case .commit(let branch, _, let message, let commit): "commit \(commit.map { String($0.prefix(7)) } ?? "") on \(branch): \(message)"
        case .tag(let name, let target, _, _): "tag \(name) → \(target.prefix(7))"
        case .file(let path, _, _): "the new \(path.split(separator: "/").last.map(String.init) ?? path)"
        default: entry.description
        }
    }
}
