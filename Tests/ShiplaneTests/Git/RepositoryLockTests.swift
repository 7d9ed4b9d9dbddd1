import Foundation
import Testing
@testable import Git

/// Each `Repository` takes its own lock in every method, so one handle used by many threads at
/// once stays whole and two repositories go on side by side. The `git` command is the oracle.
///
/// Without the lock this fails by its results: two commits on one handle read the same HEAD and
/// the second finds it moved ("HEAD moved while the commit was being made"), or meets the index
/// another thread holds locked; TSan reports the races on the shared handle's index and caches.
@Suite("Repository handles used by many threads at once", .offThePool)
struct RepositoryLockTests {
    /// Threads per repository, and rounds of work each thread does.
    static let threads = 8
    static let rounds = 6

    @Test func oneHandlePerRepositoryHammeredByManyThreadsAtOnce() throws {
        let first = try TemporaryRepository()
        let second = try TemporaryRepository()
        let repositories = [first, second]
        // One handle per repository, shared by all of its threads.
        let handles = try repositories.map { try Repository.open($0.path) }
        let base = try handles.map { try $0.resolveCommit("HEAD") }
        let failures = Failures()

        try Self.onThreads(repositories.count * Self.threads) { thread in
            let which = thread % repositories.count
            let handle = handles[which]
            let repository = repositories[which]
            let signature = Signature(name: "Hammer", email: "hammer@example.com", date: Date(timeIntervalSince1970: 1_700_000_000 + Double(thread)), timeZoneOffsetMinutes: 0)
            var laneTip: ObjectID?
            for round in 0..<Self.rounds {
                let name = "\(thread).\(round)"
                do {
                    // A commit on the work tree's branch: stage one file, move HEAD from the commit it read.
                    try repository.write("t\(thread)/r\(round).txt", name + "\n")
                    _ = try handle.commit(paths: ["t\(thread)/r\(round).txt"], message: "commit \(name)", author: signature, committer: signature)
                    // A ref of its own, written and read back.
                    try handle.writeFileReference("refs/hammer/\(thread)-\(round)", name: "value", content: Data(name.utf8), message: "hammer")
                    guard try handle.readFileReference("refs/hammer/\(thread)-\(round)", name: "value") == Data(name.utf8) else {
                        throw TestFailure("refs/hammer/\(thread)-\(round) did not read back")
                    }
                    // A branch of its own moved by compare and swap, from the commit it made last.
                    laneTip = try handle.commitFiles(
                        [(path: "lane.txt", contents: Data(name.utf8))], onTopOf: laneTip, message: "lane \(name)",
                        author: signature, committer: signature, updating: "refs/heads/lane-\(thread)")
                    // A tag on whatever HEAD is now, and reads of the moving history.
                    let head = try handle.resolveCommit("HEAD")
                    _ = try handle.createTag(name: "v\(thread).\(round)", target: head, message: "tag \(name)", tagger: signature)
                    guard case .branch(let branch, _) = try handle.head(), branch == "main" else { throw TestFailure("HEAD left main") }
                    guard try handle.isAncestor(base[which], of: head), try handle.commitCount(from: head) >= 2 else {
                        throw TestFailure("the history read from \(head.short) misses the first commit")
                    }
                    _ = try handle.tags()
                    _ = try handle.status()
                } catch {
                    failures.add("thread \(thread), round \(round): \(error)")
                }
            }
        }
        #expect(failures.all.isEmpty, "\(failures.all.prefix(5))")

        for (which, repository) in repositories.enumerated() {
            let threads = stride(from: which, to: repositories.count * Self.threads, by: repositories.count)
            let expected = Set(threads.flatMap { thread in (0..<Self.rounds).map { "\(thread).\($0)" } })
            // Every commit on main once, in one line of history, and the index and work tree agree.
            let subjects = try repository.git("log", "--format=%s", "main").split(separator: "\n").map(String.init)
            #expect(subjects.count == expected.count + 1)
            #expect(Set(subjects.dropLast().map { String($0.dropFirst("commit ".count)) }) == expected)
            #expect(try repository.git("rev-list", "--merges", "--count", "main") == "0")
            let files = Set(try repository.git("ls-tree", "-r", "--name-only", "main").split(separator: "\n").map(String.init))
            #expect(Set(threads.flatMap { thread in (0..<Self.rounds).map { "t\(thread)/r\($0).txt" } }).isSubset(of: files))
            #expect(try repository.git("status", "--porcelain") == "")
            // Every ref, branch and tag with what its thread wrote.
            for thread in threads {
                for round in 0..<Self.rounds {
                    #expect(try repository.git("cat-file", "-p", "refs/hammer/\(thread)-\(round):value") == "\(thread).\(round)")
                    #expect(try repository.git("cat-file", "-t", "v\(thread).\(round)") == "tag")
                }
                #expect(try repository.git("rev-list", "--count", "lane-\(thread)") == "\(Self.rounds)")
                #expect(try repository.git("show", "lane-\(thread):lane.txt") == "\(thread).\(Self.rounds - 1)")
            }
            #expect(try repository.git("tag", "--list").split(separator: "\n").count == expected.count)
            #expect(try repository.git("fsck", "--strict", "--no-progress") == "")
        }
    }

    /// Runs `body` on `count` threads of their own, released together, and waits for all of them.
    static func onThreads(_ count: Int, _ body: @escaping @Sendable (Int) -> Void) throws {
        let start = DispatchSemaphore(value: 0)
        let done = DispatchGroup()
        for thread in 0..<count {
            done.enter()
            Thread.detachNewThread {
                start.wait()
                body(thread)
                done.leave()
            }
        }
        for _ in 0..<count { start.signal() }
        guard done.wait(timeout: .now() + 300) == .success else { throw TestFailure("the threads did not finish in 300 s") }
    }

    /// What went wrong on any thread.
    final class Failures: @unchecked Sendable {
        // @unchecked: `messages` is read and written only under `lock`.
        private let lock = NSLock()
        private var messages: [String] = []
        func add(_ message: String) { lock.withLock { messages.append(message) } }
        var all: [String] { lock.withLock { messages } }
    }
}
