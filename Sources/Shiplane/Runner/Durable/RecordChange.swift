import Foundation

/// One change to a run's record: one line of its log (`.git/shiplane/run.json`).
///
/// The log's first line is the record as it stood when it was first written (or last rewritten
/// whole: a resume, the supervisor settling a run); every later line is one change, appended and
/// fsynced before the run goes on. A reader replays the lines over the first (`RunRecord.apply`),
/// so the record is written once and then grows by what changed, not rewritten on every change.
enum RecordChange: Codable, Sendable, Equatable {
    /// A step finished (replacing an earlier record of the same number: a step run again).
    case step(RecordedStep)
    /// Effects about to happen, the first at index `from` of the record's effects.
    case effects([RecordedEffect], from: Int)
    /// An effect's new state (done, undone, kept, a note), at `index`.
    case effect(RecordedEffect, at: Int)
    /// The run passed its point of no return for this reason, or (nil) took it back.
    case pointOfNoReturn(String?)
    /// The remote the record went to, or (nil) none holds it.
    case remoteRecord(String?)
    /// The run stopped unfinished.
    case state(RunRecord.State)

    private enum Key: String, CodingKey {
        case step, effects, from, effect, at, pointOfNoReturn, remoteRecord, state
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: Key.self)
        switch self {
        case .step(let step):
            try container.encode(step, forKey: .step)
        case .effects(let effects, let from):
            try container.encode(effects, forKey: .effects)
            try container.encode(from, forKey: .from)
        case .effect(let effect, let index):
            try container.encode(effect, forKey: .effect)
            try container.encode(index, forKey: .at)
        case .pointOfNoReturn(let reason):
            try reason.map { try container.encode($0, forKey: .pointOfNoReturn) } ?? container.encodeNil(forKey: .pointOfNoReturn)
        case .remoteRecord(let remote):
            try remote.map { try container.encode($0, forKey: .remoteRecord) } ?? container.encodeNil(forKey: .remoteRecord)
        case .state(let state):
            try container.encode(state, forKey: .state)
        }
    }

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: Key.self)
        if container.contains(.step) {
            self = .step(try container.decode(RecordedStep.self, forKey: .step))
        } else if container.contains(.effects) {
            self = .effects(try container.decode([RecordedEffect].self, forKey: .effects), from: try container.decode(Int.self, forKey: .from))
        } else if container.contains(.effect) {
            self = .effect(try container.decode(RecordedEffect.self, forKey: .effect), at: try container.decode(Int.self, forKey: .at))
        } else if container.contains(.pointOfNoReturn) {
            self = .pointOfNoReturn(try container.decodeIfPresent(String.self, forKey: .pointOfNoReturn))
        } else if container.contains(.remoteRecord) {
            self = .remoteRecord(try container.decodeIfPresent(String.self, forKey: .remoteRecord))
        } else if container.contains(.state) {
            self = .state(try container.decode(RunRecord.State.self, forKey: .state))
        } else {
            throw DecodingError.dataCorrupted(.init(codingPath: [], debugDescription: "a line that names no change the record knows"))
        }
    }
}

extension RunRecord {
    /// The record with `change` made: what a reader of the log does with each line after the first.
    /// - Throws: when the change names an effect the record does not have (the log is not this record's).
    mutating func apply(_ change: RecordChange) throws {
        switch change {
        case .step(let step):
            if let index = steps.firstIndex(where: { $0.number == step.number }) {
                steps[index] = step
            } else {
                steps.append(step)
            }
        case .effects(let added, let from):
            guard from <= effects.count else { throw RecordLogGap(index: from, count: effects.count) }
            effects.replaceSubrange(from..<min(effects.count, from + added.count), with: added)
        case .effect(let effect, let index):
            guard effects.indices.contains(index) else { throw RecordLogGap(index: index, count: effects.count) }
            effects[index] = effect
        case .pointOfNoReturn(let reason):
            pointOfNoReturn = reason
        case .remoteRecord(let remote):
            remoteRecord = remote
        case .state(let state):
            self.state = state
        }
    }
}

/// A line of the record's log names an effect the lines before it never recorded.
struct RecordLogGap: Error, CustomStringConvertible {
    var index: Int
    var count: Int
    var description: String { "a change to effect \(index + 1), but the lines before it record \(count)" }
}
