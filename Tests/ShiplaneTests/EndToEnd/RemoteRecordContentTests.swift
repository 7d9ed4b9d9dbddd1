import Foundation
import Testing

/// A repository at 1.2.3 with a bare origin, a feat commit since, and the lane `laneSource`.
private func repository(lane laneSource: String) throws -> (repo: TemporaryRepository, origin: TemporaryRepository) {
    let repo = try versionedRepository()
    let origin = try TemporaryRepository(bare: true)
    try repo.git("remote", "add", "origin", origin.path)
    try repo.git("push", "-q", "origin", "main", "v1.2.3")
    try repo.write("Lanes/Ship.swift", laneSource)
    try repo.git("add", ".")
    try repo.git("commit", "-q", "-m", "feat: lanes")
    return (repo, origin)
}

/// Every object reachable from the record's ref on `origin`, as text.
private func objectsOfTheRemoteRecord(_ origin: TemporaryRepository) throws -> [String] {
    let ids = try origin.git("rev-list", "--objects", "refs/shiplane/run").split(separator: "\n").map { String($0.prefix(40)) }
    return try ids.map { try origin.git("cat-file", "-p", $0) }
}

/// What goes to origin with the push: only what a fresh clone needs to finish, never a secret.
@Suite("The run record on origin: small, and without secrets, values or machine names", .serialized, .offThePool)
struct RemoteRecordContentTests {
    /// A lane's own action returns a token read from the environment; the run is killed after its
    /// push. No object of the pushed record holds the token (plain or base64), the lane's option
    /// value, or this machine's name — and a fresh clone still recognises the command and finishes.
    @Test func noSecretReturnedByAStepNorAnOptionValueReachesOrigin() throws {
        let (repo, origin) = try repository(lane: #"""
        import Shiplane
        struct ReadToken: Action {
            static let name = "readToken"
            func run(in step: StepContext) throws -> String { step.lane.environment["DEPLOY_TOKEN"] ?? "" }
        }
        struct Ship: Lane {
            @Option(help: "a note for the log") var note = ""
            func run(_ lane: LaneContext) async throws {
                let token = try lane.run(ReadToken())
                _ = try lane.bumpVersion(.minor)
                try lane.commitVersionBump()
                try await lane.push()
                lane.log("token of \(token.count) characters, note \(note.count)")
            }
        }
        """#)
        let secret = "dpl-" + "5f0c2a9e71b4d3"
        let option = "opt" + "VALUE4417"
        let killed = try repo.shiplane(["ship", "--note", option], environment: ["DEPLOY_TOKEN": secret, "SHIPLANE_FAULT": "after-step:4"])
        #expect(killed.status == 75, "\(killed.all)")
        let objects = try objectsOfTheRemoteRecord(origin)
        #expect(objects.contains { $0.contains("\"lane\" : \"ship\"") }, "\(objects)")
        let host = RunRecordHost.name
        for object in objects {
            #expect(!object.contains(secret), "\(object)")
            #expect(!object.contains(Data(secret.utf8).base64EncodedString()), "\(object)")
            #expect(!object.contains(option), "\(object)")
            #expect(host.isEmpty || !object.contains("\"host\" : \"\(host)\""), "\(object)")
            #expect(!object.contains(repo.root), "no path of this machine, only paths relative to the checkout: \(object)")
        }
        #expect(objects.contains { $0.contains("\"workTree\" : \".\"") }, "\(objects)")
        // A fresh clone in CI recognises the same command by the digest of its options and finishes it.
        let fresh = try TemporaryRepository(commit: false)
        try fresh.git("clone", "-q", origin.path, fresh.path + "/clone")
        let clone = fresh.path + "/clone"
        let again = try runProgram(shiplaneBinary, ["ship", "--note", option], in: clone,
                                   environment: fresh.environment.merging(["CI": "true", "DEPLOY_TOKEN": secret]) { $1 })
        #expect(again.status == 0, "\(again.all)")
        #expect(try origin.git("tag", "--list") == "v1.2.3", "no tag was made by this lane")
        #expect(try runProgram("/usr/bin/git", ["log", "-1", "--format=%s"], in: origin.path, environment: origin.environment).stdout == "chore(release): 1.3.0\n")
        // Another command is not taken for it.
        #expect(try runProgram("/usr/bin/git", ["cat-file", "-t", "refs/shiplane/run"], in: origin.path, environment: origin.environment).status != 0)
    }

    /// A release lane over a 1.5 MB CHANGELOG.md records file changes by digest and saved copy:
    /// the record (local and on origin) stays under 64 KB.
    @Test func aBigChangelogKeepsTheRecordSmall() throws {
        let (repo, origin) = try repository(lane: #"""
        import Shiplane
        struct Ship: Lane {
            func run(_ lane: LaneContext) async throws {
                let version = try lane.bumpVersion(.minor)
                let changelog = try lane.writeChangelog()
                try lane.commitVersionBump(version, changelog)
                try lane.addGitTag("v\(version)")
                try await lane.push(tags: ["v\(version)"])
            }
        }
        """#)
        var big = "# Changelog\n\n"
        for index in 0..<24_000 { big += "- an older entry number \(index) with some words to fill the line\n" }
        try repo.write("CHANGELOG.md", big)
        try repo.git("add", ".")
        try repo.git("commit", "-q", "-m", "docs: history")
        #expect(big.utf8.count > 1_400_000)
        let killed = try repo.shiplane(["ship"], environment: ["SHIPLANE_FAULT": "after-step:5"])
        #expect(killed.status == 75, "\(killed.all)")
        let local = try #require(FileManager.default.contents(atPath: repo.path + "/.git/shiplane/run.json"))
        #expect(local.count < 64 * 1024, "the local record is \(local.count) bytes")
        let remote = try origin.git("show", "refs/shiplane/run:run.json")
        #expect(remote.utf8.count < 64 * 1024, "the record on origin is \(remote.utf8.count) bytes")
        let resumed = try repo.shiplane(["resume"])
        #expect(resumed.status == 0, "\(resumed.all)")
    }
}

/// This machine's name, as the record would write it.
enum RunRecordHost {
    static var name: String {
        var buffer = [CChar](repeating: 0, count: 256)
        guard gethostname(&buffer, buffer.count - 1) == 0 else { return "" }
        return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
