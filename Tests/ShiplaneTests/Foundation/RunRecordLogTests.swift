import Foundation
import Testing
@testable import Shiplane

/// Issue 39, item 3: the run's record is an append-only log, one synced line per change, that
/// every reader (resume, rollback, the supervisor) replays into the same record the run held.
@Suite(.offThePool) struct RunRecordLogTests {
    private func withStore(_ body: (RunStore, String) throws -> Void) throws {
        let folder = NSTemporaryDirectory() + "run-record-log-\(UUID().uuidString)"
        defer { try? FileManager.default.removeItem(atPath: folder) }
        try body(RunStore(folder: folder), folder + "/run.json")
    }

    private func freshRecord() -> RunRecord {
        RunRecord(lane: "release", arguments: ["--bump", "minor"], pid: 42, host: "ci", startedAt: Date(timeIntervalSince1970: 1_800_000_000), workTree: "/w")
    }

    private func lines(_ path: String) throws -> [String] {
        try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
    }

    /// A thousand steps, each with an effect intended and done: the record is written whole once,
    /// then grows by one line per change, and reads back as the record the run held.
    @Test func eachChangeIsOneLineAndTheLogReadsBackAsTheRecord() throws {
        try withStore { store, path in
            let recorder = try RunRecorder(store: store, record: freshRecord())
            for number in 1...1000 {
                let index = try recorder.intend(step: number, description: "write out/\(number).txt",
                                                effect: try AnyEffect(FileWritten(path: "/w/out/\(number).txt", saved: nil, afterHash: "")))
                recorder.done(index, effect: try AnyEffect(FileWritten(path: "/w/out/\(number).txt", saved: nil, afterHash: "h\(number)")))
                recorder.stepFinished(RecordedStep(number: number, name: "write", callSite: nil, outcome: .succeeded, output: "\"\(number)\""))
            }
            try recorder.passPointOfNoReturn("pushed main to origin")
            recorder.stoppedUnfinished()
            let written = try lines(path)
            #expect(written.count == 3 * 1000 + 2 + 1, "the first line, three per step, two more, and the last newline")
            #expect(written.last == "")
            #expect(written.dropLast().allSatisfy { !$0.isEmpty && $0.first == "{" && $0.last == "}" })
            let read = try #require(try store.load())
            #expect(read == recorder.current)
            #expect(read.effects.count == 1000 && read.steps.count == 1000 && read.effects.allSatisfy { $0.status == .done })
            #expect(read.pointOfNoReturn == "pushed main to origin" && read.state == .unfinished)
        }
    }

    /// A change kept in memory (`durable: false`) goes with the next line, before it.
    @Test func aChangeKeptInMemoryGoesWithTheNextWrite() throws {
        try withStore { store, _ in
            let recorder = try RunRecorder(store: store, record: freshRecord())
            let index = try recorder.intend(step: 1, description: "a", effect: try AnyEffect(FileWritten(path: "/w/a", saved: nil, afterHash: "")))
            recorder.done(index, durable: false)
            #expect(try store.load()?.effects[0].status == .intended, "not written yet")
            recorder.stepFinished(RecordedStep(number: 1, name: "a", callSite: nil, outcome: .succeeded, returnsNothing: true))
            #expect(try store.load()?.effects[0].status == .done)
        }
    }

    /// Issue 36: a finished step's line and a local effect's done are written at once (a killed
    /// process loses neither) without waiting for the disk; the next intent waits, and its fsync
    /// covers them. The done of an effect outside the repository still waits.
    @Test func onlyIntentsAndDonesOutsideTheRepositoryWaitForTheDisk() throws {
        try withStore { store, _ in
            let recorder = try RunRecorder(store: store, record: freshRecord())
            let file = try recorder.intend(step: 1, description: "write VERSION",
                                           effect: try AnyEffect(FileWritten(path: "/w/VERSION", saved: nil, afterHash: "h")))
            #expect(store.appendsWaitedFor == 0, "the first write is the whole record")
            recorder.done(file)
            recorder.stepFinished(RecordedStep(number: 1, name: "bumpVersion", callSite: nil, outcome: .succeeded, returnsNothing: true))
            #expect(store.appendsWaitedFor == 0, "nothing waits on these two lines")
            let read = try #require(try store.load(), "both lines are in the file when the calls return")
            #expect(read.effects.map(\.status) == [.done] && read.steps.map(\.number) == [1])
            let release = try recorder.intend(step: 2, description: "create the release",
                                              effect: try AnyEffect(GitHubReleaseCreated(api: "https://api.github.com", repository: "o/r", id: nil, tag: "v1.2.4")))
            #expect(store.appendsWaitedFor == 1, "an intent waits")
            recorder.done(release, effect: try AnyEffect(GitHubReleaseCreated(api: "https://api.github.com", repository: "o/r", id: 7, tag: "v1.2.4")))
            #expect(store.appendsWaitedFor == 2, "the release's id is the way back to it: its done waits")
            recorder.stepFinished(RecordedStep(number: 2, name: "githubRelease", callSite: nil, outcome: .succeeded, returnsNothing: true))
            #expect(store.appendsWaitedFor == 2)
            #expect(try store.load() == recorder.current)
        }
    }

    /// Issue 36: the lines nothing waits on are not synced by themselves (no fsync, no thread of
    /// their own): the next intent's one fsync of the log covers them. A saved copy is synced in
    /// the group of the write of the intent that names it, with the saved folder, before the line.
    @Test func onlyWritesThatAnEffectWaitsOnSyncAndCopiesGoInTheirGroup() throws {
        try withStore { store, path in
            let recorder = try RunRecorder(store: store, record: freshRecord())
            let saved = try store.saveCopy(Data("1.2.3\n".utf8), name: "step1-a")
            #expect(store.syncs == 0, "a copy is synced with the intent that names it")
            let file = try recorder.intend(step: 1, description: "write VERSION",
                                           effect: try AnyEffect(FileWritten(path: "/w/VERSION", saved: saved, afterHash: "h")))
            #expect(store.syncs == 4, "the copy, the record, the saved folder, the run folder: \(store.syncs)")
            recorder.done(file)
            recorder.stepFinished(RecordedStep(number: 1, name: "bumpVersion", callSite: nil, outcome: .succeeded, returnsNothing: true))
            #expect(store.syncs == 4, "nothing syncs these two lines by themselves")
            let commit = try recorder.intend(step: 2, description: "commit",
                                             effect: try AnyEffect(FileWritten(path: "/w/other", saved: nil, afterHash: "h")))
            #expect(store.syncs == 5, "one fsync of the log covers the two lines and the intent")
            recorder.done(commit)
            let second = try store.saveCopy(Data("x".utf8), name: "step2-b")
            _ = try recorder.intend(step: 2, description: "write other",
                                    effect: try AnyEffect(FileWritten(path: "/w/other2", saved: second, afterHash: "h")))
            #expect(store.syncs == 8, "the copy, the saved folder (its new name), the log: \(store.syncs)")
            #expect(store.savedCopy(saved) == Data("1.2.3\n".utf8) && store.savedCopy(second) == Data("x".utf8))
            #expect(try store.load() == recorder.current)
            #expect(FileManager.default.fileExists(atPath: path))
        }
    }

    /// A crash in the middle of an append leaves half a line at the end: nothing acted on it, so
    /// it is left out. Half a line before another is no log of this record: it is an error.
    @Test func aTornLastLineIsLeftOutAndACorruptLineIsNamed() throws {
        try withStore { store, path in
            let recorder = try RunRecorder(store: store, record: freshRecord())
            recorder.stepFinished(RecordedStep(number: 1, name: "a", callSite: nil, outcome: .succeeded, returnsNothing: true))
            let whole = try #require(FileManager.default.contents(atPath: path))
            try (whole + Data("{\"step\":{\"numb".utf8)).write(to: URL(fileURLWithPath: path))
            #expect(try store.load() == recorder.current)
            try (whole + Data("{\"step\":{\"numb\n{\"state\":\"unfinished\"}\n".utf8)).write(to: URL(fileURLWithPath: path))
            #expect(throws: ShiplaneError.self) { try store.load() }
            try (whole + Data("{\"effect\":{},\"at\":7}\n".utf8)).write(to: URL(fileURLWithPath: path))
            #expect(throws: ShiplaneError.self) { try store.load() }
        }
    }

    /// Every file under the run folder, whole, as text.
    private func everyFile(under folder: String) -> [(path: String, text: String)] {
        let files = FileManager.default.enumerator(atPath: folder)?.compactMap { $0 as? String } ?? []
        return files.compactMap { name in
            let path = folder + "/" + name
            guard let data = FileManager.default.contents(atPath: path) else { return nil }
            return (path, String(decoding: data, as: UTF8.self))
        }
    }

    /// A value that becomes a secret only later in the run (a token a step printed, then
    /// registered) is in a line already written: the record is written again whole at once,
    /// redacted, and no file of the run folder holds it in clear, then or after later lines.
    @Test func aSecretRegisteredLaterLeavesNoLineHoldingIt() throws {
        try withStore { store, path in
            let token = "tok-late-\(UUID().uuidString)"
            let recorder = try RunRecorder(store: store, record: freshRecord())
            recorder.stepFinished(RecordedStep(number: 1, name: "sh", callSite: nil, outcome: .succeeded, output: "\"issued \(token)\""))
            let index = try recorder.intend(step: 2, description: "tag with \(token)",
                                            effect: try AnyEffect(FileWritten(path: "/w/\(token).txt", saved: nil, afterHash: "")))
            #expect(everyFile(under: store.folder).contains { $0.text.contains(token) }, "in clear before it is a secret: the check can fail")

            RuntimeSecrets.register([token])
            let afterRegistering = everyFile(under: store.folder)
            #expect(!afterRegistering.isEmpty)
            #expect(afterRegistering.allSatisfy { !$0.text.contains(token) }, "\(afterRegistering.map(\.path))")

            recorder.done(index)
            recorder.stepFinished(RecordedStep(number: 2, name: "tag", callSite: nil, outcome: .succeeded, output: "\"\(token)\""))
            recorder.stoppedUnfinished()
            let files = everyFile(under: store.folder)
            #expect(files.allSatisfy { !$0.text.contains(token) }, "\(files.map(\.path))")
            #expect(try lines(path).count > 2, "later changes are lines again")
            // What the log reads back as: the steps whose results held it run again on resume.
            let read = try #require(try store.load())
            #expect(read.steps.map(\.number) == [1, 2] && read.steps.allSatisfy { $0.output == nil })
            #expect(read.effects.first?.status == .done && read.effects.first?.description.contains("***") == true)
        }
    }

    /// A record an earlier Shiplane wrote whole, pretty-printed, is read as it is, and a resume
    /// writes it again as a log.
    @Test func aWholeRecordOfAnEarlierShiplaneIsRead() throws {
        try withStore { store, path in
            var record = freshRecord()
            record.steps = [RecordedStep(number: 1, name: "bumpVersion", callSite: nil, outcome: .succeeded, output: "\"1.3.0\"")]
            record.pointOfNoReturn = "pushed main to origin"
            try FileManager.default.createDirectory(atPath: store.folder, withIntermediateDirectories: true)
            try RunStore.encoder.encode(record).write(to: URL(fileURLWithPath: path))
            #expect(try store.load() == record)
            let resumed = try RunRecorder(store: store, record: freshRecord(), resuming: record)
            #expect(try lines(path).count == 2, "one line and its newline")
            #expect(try store.load() == resumed.current)
        }
    }
}
