import Foundation

/// The on-disk record of one run: who runs what, every step's result, every effect.
///
/// Written atomically (and fsynced) under the repository's git folder before and after each
/// effect, so whatever process comes next — the supervisor after a crash, `shiplane rollback`,
/// `shiplane resume`, a re-run of the same lane — knows exactly what the run did.
package struct RunRecord: Codable, Sendable, Equatable {
    /// What the run is doing now.
    package enum State: String, Codable, Sendable {
        /// A process is (or was, when its lock is free) running the lane.
        case running
        /// The run stopped before it finished: a failure or interrupt past the point of no return,
        /// or a rollback that could not undo everything.
        case unfinished
    }

    /// A unique id for the run, kept when it resumes.
    package var id: String
    /// The lane's name as the command line gives it (`release`, `bump`).
    package var lane: String
    /// The lane's arguments as given (after the lane name): a re-run with the same ones resumes.
    /// A secret among them is kept as `***` (see `argumentsDigest`).
    package var arguments: [String]
    /// The SHA-256 of the arguments as given, kept when a secret was redacted from `arguments`:
    /// the same command, given its secrets again, is recognised by it (nil: `arguments` are whole).
    package var argumentsDigest: String?
    /// The process id of the process that runs (or ran) the lane.
    package var pid: Int32
    /// The machine it runs on (`currentHost`).
    package var host: String
    /// When the run started; a resume keeps the first start.
    package var startedAt: Date
    /// The work tree root the record's paths are under.
    package var workTree: String
    /// Whether the run is going or stopped unfinished.
    package var state: State
    /// Why the run passed its point of no return (`pushed main, v1.5.0 to origin`); nil before.
    package var pointOfNoReturn: String?
    /// Every finished step, with its result when it could be saved.
    package var steps: [RecordedStep]
    /// Every side effect, in the order it was recorded.
    package var effects: [RecordedEffect]
    /// How many times this run was resumed.
    package var resumes: Int
    /// The remote the record was pushed to (`refs/shiplane/run`) at the point of no return.
    package var remoteRecord: String?
    /// True for a record fetched from the remote into a fresh clone: its commands run again
    /// there (the artifacts they made are not in the clone); the other steps replay.
    package var fetchedFromRemote: Bool?
    /// The monorepo package the run releases (`bump --package core`), kept in the remote's copy,
    /// whose arguments are only a digest; nil for a run of the whole repository.
    package var scope: String?

    /// The package a run of `lane` with `arguments` releases on its own: `shiplane bump …
    /// --package NAME`. Its record on origin is the package's (`RemoteRunRecord.reference(scope:)`),
    /// so the packages of a monorepo release at once, each with its own record.
    package static func packageScope(lane: String, arguments: [String]) -> String? {
        guard lane == "bump" else { return nil }
        for (index, word) in arguments.enumerated() {
            if word == "--" { return nil }
            if word == "--package", index + 1 < arguments.count { return arguments[index + 1] }
            if word.hasPrefix("--package=") { return String(word.dropFirst("--package=".count)) }
        }
        return nil
    }

    /// The package this run releases on its own, nil for the whole repository.
    package var packageScope: String? { scope ?? Self.packageScope(lane: lane, arguments: arguments) }

    /// Creates the record of a fresh run: running, with no steps or effects yet.
    package init(
        id: String = UUID().uuidString, lane: String, arguments: [String], pid: Int32, host: String,
        startedAt: Date, workTree: String
    ) {
        self.id = id
        self.lane = lane
        self.arguments = arguments
        self.pid = pid
        self.host = host
        self.startedAt = startedAt
        self.workTree = workTree
        state = .running
        pointOfNoReturn = nil
        steps = []
        effects = []
        resumes = 0
    }

    /// This machine's name, from `gethostname` (no name lookup: that can stall without a network).
    package static var currentHost: String {
        var buffer = [CChar](repeating: 0, count: 256)
        guard gethostname(&buffer, buffer.count - 1) == 0 else { return "unknown host" }
        return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// The record with every secret the run knows redacted from its arguments (the digest of the
    /// arguments as given kept to recognise the same command): nothing on disk holds a secret.
    package func redactingArguments(_ redactor: SecretRedactor) -> RunRecord {
        let redacted = arguments.map { redactor.redact($0) }
        guard redacted != arguments else { return self }
        var copy = self
        copy.argumentsDigest = Self.argumentsDigest(arguments)
        copy.arguments = redacted
        return copy
    }

    /// The command that re-runs this lane with its options (`shiplane bump patch --commit`).
    package var commandLine: String {
        if fetchedFromRemote == true, arguments.first?.hasPrefix("sha256:") == true {
            // The remote keeps only the digest of the options: name the lane, not values it never had.
            return "shiplane \(Self.shellQuoted(lane)) (with the options it was started with)"
        }
        return (["shiplane", lane] + arguments).map(Self.shellQuoted).joined(separator: " ")
    }

    package static func shellQuoted(_ word: String) -> String {
        let plain = word.unicodeScalars.allSatisfy { CharacterSet.alphanumerics.contains($0) || "-_./:=@%+,".unicodeScalars.contains($0) }
        return plain && !word.isEmpty ? word : "'" + word.replacingOccurrences(of: "'", with: "'\\''") + "'"
    }
}

/// A step as the record keeps it: enough to recognise it on replay and hand back its result.
package struct RecordedStep: Codable, Sendable, Equatable {
    /// The step's number in the run.
    package var number: Int
    /// The action's name; replay hands the result back only to a step of the same name.
    package var name: String
    /// Where the lane file called the action.
    package var callSite: CallSite?
    /// How the step ended.
    package var outcome: StepOutcome
    /// The step's result as JSON text, when its type is `ReplayableOutput`; replay returns it.
    /// Text, not bytes: every secret the run knows is redacted from it before it leaves the machine.
    package var output: String?
    /// True when the step returns nothing (so replay returns `()` without a saved result).
    package var returnsNothing: Bool
    /// The artifacts the step made, with their digests: a resumed run keeps them, and a fresh
    /// clone that makes them again must make the same bytes (nil in records from before artifacts).
    package var artifacts: [Artifact]?

    /// Creates the record of a finished step.
    package init(
        number: Int, name: String, callSite: CallSite?, outcome: StepOutcome, output: String? = nil, returnsNothing: Bool = false,
        artifacts: [Artifact] = []
    ) {
        self.number = number
        self.name = name
        self.callSite = callSite
        self.outcome = outcome
        self.output = output
        self.returnsNothing = returnsNothing
        self.artifacts = artifacts.isEmpty ? nil : artifacts
    }
}

/// One side effect as the record keeps it: written before it happens (`intended`), updated after.
public struct RecordedEffect: Codable, Sendable, Equatable {
    /// Where an effect stands.
    public enum Status: String, Codable, Sendable {
        /// About to happen, or happening when the run stopped: it may or may not have landed.
        case intended
        /// It happened.
        case done
        /// Rollback undid it.
        case undone
        /// Rollback left it in place; `note` says why.
        case kept
    }

    /// The number of the step that made it.
    package var step: Int
    /// The effect in words, as rollback reports it (`delete tag v1.2.0`, `pushed main to origin`).
    package var description: String
    /// What it changed, as data.
    package var effect: AnyEffect
    /// Where it stands.
    package var status: Status
    /// Why rollback left it in place, or how it was settled.
    package var note: String?
    /// The note on a message whose send may be under way: written just before the message goes
    /// (after the record went to the remote), and on every unsent message of the remote's copy. A
    /// message recorded without it was never sent: the retry sends it.
    package static let sendUnderWay = "the send may be under way"
    /// Recorded after the point of no return: others may already see it.
    package var afterPointOfNoReturn: Bool

    /// Creates the record of an effect.
    package init(step: Int, description: String, effect: AnyEffect, status: Status, afterPointOfNoReturn: Bool) {
        self.step = step
        self.description = description
        self.effect = effect
        self.status = status
        self.afterPointOfNoReturn = afterPointOfNoReturn
    }
}
