import Foundation
import Testing
@testable import Git

@Suite("Pushes over smart HTTP with basic auth, against git http-backend", .serialized, .offThePool)
struct HTTPPushTests {
    static let token = "ghp_TestToken_4f9c2a71e0"

    /// A work repository with tag v1.0.0, a bare repository served over HTTP, and the server.
    private func setUp() async throws -> (work: TemporaryRepository, bare: String, server: GitHTTPServer) {
        let work = try TemporaryRepository()
        try work.git("tag", "-a", "-m", "Release 1.0.0", "v1.0.0")
        try work.git("tag", "other")
        let root = work.root + "/served"
        try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
        try runProgram("/usr/bin/git", ["init", "-q", "--bare", root + "/remote.git"], in: root, environment: work.environment)
        let server = try await GitHTTPServer.start(
            projectRoot: root, username: "x-access-token", password: Self.token, environment: work.environment)
        return (work, root + "/remote.git", server)
    }

    private func refs(_ bare: String, _ work: TemporaryRepository) throws -> [String: String] {
        let output = try runProgram("/usr/bin/git", ["--git-dir=" + bare, "show-ref"], in: work.root, environment: work.environment)
        var refs: [String: String] = [:]
        for line in output.stdout.split(separator: "\n") {
            let parts = line.split(separator: " ")
            if parts.count == 2 { refs[String(parts[1])] = String(parts[0]) }
        }
        return refs
    }

    /// Runs a blocking libgit2 call on a thread of its own, so the in-process server keeps running.
    private func blocking<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            Thread.detachNewThread { continuation.resume(with: Result { try body() }) }
        }
    }

    @Test func pushWithTheRightTokenLands() async throws {
        let (work, bare, server) = try await setUp()
        defer { server.stop() }
        let repository = try Repository.open(work.path)
        let url = server.url("remote.git")
        try await blocking {
            try repository.push(remote: url, refspecs: ["refs/heads/main", "refs/tags/v1.0.0"], credentials: .token(Self.token))
        }
        let landed = try refs(bare, work)
        #expect(landed == ["refs/heads/main": try work.git("rev-parse", "main"), "refs/tags/v1.0.0": try work.git("rev-parse", "v1.0.0")])
        #expect(server.unauthorizedCount >= 1)

        // Deleting the tag (rollback) works over HTTP too.
        try await blocking { try repository.push(remote: url, refspecs: [":refs/tags/v1.0.0"], credentials: .token(Self.token)) }
        #expect(try refs(bare, work).keys.sorted() == ["refs/heads/main"])
    }

    @Test func aWrongTokenFailsFastWithoutShowingIt() async throws {
        let (work, bare, server) = try await setUp()
        defer { server.stop() }
        let repository = try Repository.open(work.path)
        let wrong = "ghp_WrongToken_77aa01"
        let url = server.url("remote.git")
        let error = await #expect(throws: GitError.self) {
            try await blocking { try repository.push(remote: url, refspecs: ["refs/tags/v1.0.0"], credentials: .token(wrong)) }
        }
        #expect(error?.code == .authentication)
        #expect(error?.message.contains("refused") == true)
        #expect(server.requestCount <= 6)
        #expect(server.requestCount >= 2)
        #expect(String(describing: error).contains(wrong) == false)
        #expect(try refs(bare, work).isEmpty)
    }

    @Test func aTokenInTheURLNeverReachesTheError() async throws {
        let (work, _, server) = try await setUp()
        defer { server.stop() }
        let repository = try Repository.open(work.path)
        let wrong = "ghp_InURL_Token_5511"
        let url = server.url("remote.git").replacingOccurrences(of: "http://", with: "http://x-access-token:\(wrong)@")
        let error = await #expect(throws: GitError.self) {
            try await blocking { try repository.push(remote: url, refspecs: ["refs/tags/v1.0.0"], credentials: .token(wrong)) }
        }
        #expect(error?.code == .authentication)
        #expect(String(describing: error).contains(wrong) == false)
        #expect(String(describing: error).contains("x-access-token:") == false)
        #expect(server.requestCount <= 6)
    }

    @Test func noCredentialsFailWithAnAuthenticationError() async throws {
        let (work, _, server) = try await setUp()
        defer { server.stop() }
        let repository = try Repository.open(work.path)
        let url = server.url("remote.git")
        let error = await #expect(throws: GitError.self) {
            try await blocking { try repository.push(remote: url, refspecs: ["refs/tags/v1.0.0"], credentials: .none) }
        }
        #expect(error?.code == .authentication)
        #expect(server.requestCount <= 2)
    }

    @Test func theServerItselfAnswersGitClients() async throws {
        // The oracle's oracle: the git command pushes through the same server with the same auth.
        let (work, bare, server) = try await setUp()
        defer { server.stop() }
        let url = server.url("remote.git").replacingOccurrences(of: "http://", with: "http://x-access-token:\(Self.token)@")
        let output = try await blocking {
            try runProgram("/usr/bin/git", ["push", "-q", url, "refs/tags/other"], in: work.path, environment: work.environment)
        }
        #expect(output.status == 0, "\(output.stderr)")
        #expect(try refs(bare, work)["refs/tags/other"] == (try work.git("rev-parse", "other")))
    }
}
