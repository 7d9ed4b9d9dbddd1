import Foundation
import Testing
import Yams

/// The composite action (`action.yml`): its interface, and its run step executed by bash the way
/// the runner executes it, with the variables GitHub sets.
@Suite("action.yml: the composite GitHub Action", .offThePool)
struct GitHubActionTests {
    static func action() throws -> [String: Any] {
        let text = try String(contentsOfFile: packageRoot + "/action.yml", encoding: .utf8)
        return try #require(try Yams.load(yaml: text) as? [String: Any])
    }

    @Test func itDeclaresItsInputsOutputsAndACompositeRun() throws {
        let action = try Self.action()
        let inputs = try #require(action["inputs"] as? [String: Any])
        #expect(Set(inputs.keys) == ["lane", "arguments", "working-directory", "dry-run", "version", "install"])
        let outputs = try #require(action["outputs"] as? [String: [String: Any]])
        #expect(outputs["version"]?["value"] as? String == "${{ steps.run.outputs.version }}")
        #expect(Set(outputs.keys) == ["version", "tag", "release_url"])
        let runs = try #require(action["runs"] as? [String: Any])
        #expect(runs["using"] as? String == "composite")
        let steps = try #require(runs["steps"] as? [[String: Any]])
        // The lane cache is kept between jobs in the home folder (a container job's `runner.temp`
        // names the host's folder), keyed by toolchain, image, Shiplane and the lanes, and a job
        // whose lanes changed starts from the newest cache of the same system and Shiplane.
        let laneCache = try #require(steps.first { $0["name"] as? String == "Cache the compiled lanes" }?["with"] as? [String: Any])
        #expect(laneCache["path"] as? String == "~/.cache/shiplane/lanes")
        let key = try #require(laneCache["key"] as? String)
        let restore = try #require(laneCache["restore-keys"] as? String)
        for part in ["steps.fingerprint.outputs.system", "steps.fingerprint.outputs.shiplane", "steps.fingerprint.outputs.lanes"] {
            #expect(key.contains(part), "\(key)")
        }
        #expect(key.hasPrefix(restore.trimmingCharacters(in: .whitespacesAndNewlines)) && !restore.contains("outputs.lanes"), "\(restore)")
        let run = try #require(steps.first { $0["id"] as? String == "run" }?["run"] as? String)
        #expect(run.contains(#"export SHIPLANE_CACHE_DIR="$HOME/.cache/shiplane/lanes""#))
        // Nothing reads `github.action_path`: in a container job it is the host's folder.
        let text = try String(contentsOfFile: packageRoot + "/action.yml", encoding: .utf8)
        #expect(!text.contains("${{ github.action_path }}"))
    }

    @Test func theRunStepBumpsAndWritesTheOutputsGitHubReads() throws {
        let action = try Self.action()
        let steps = try #require((action["runs"] as? [String: Any])?["steps"] as? [[String: Any]])
        let run = try #require(steps.first { $0["id"] as? String == "run" })
        let script = try #require(run["run"] as? String)
        let repo = try versionedRepository()
        let output = repo.root + "/github_output", summary = repo.root + "/step_summary"
        var environment = isolatedEnvironment(home: repo.root + "/home", extra: [
            "GITHUB_ACTIONS": "true", "GITHUB_OUTPUT": output, "GITHUB_STEP_SUMMARY": summary,
            "INPUT_LANE": "bump", "INPUT_ARGUMENTS": "minor --commit  --tag", "INPUT_DRY_RUN": "false",
        ])
        environment["PATH"] = URL(fileURLWithPath: shiplaneBinary).deletingLastPathComponent().path + ":" + (environment["PATH"] ?? "")
        let result = try runProgram("/bin/bash", ["-c", script], in: repo.path, environment: environment)
        #expect(result.status == 0, "\(result.stdout)\(result.stderr)")
        #expect(result.stdout.contains("::group::bumpVersion bump=minor"), "GitHub output was asked for: \(result.stdout)")
        #expect(String(decoding: FileManager.default.contents(atPath: output) ?? Data(), as: UTF8.self) == "version=1.3.0\ntag=v1.3.0\n")
        #expect(try repo.git("tag", "--points-at", "HEAD") == "v1.3.0")

        // Arguments are split on whitespace, never evaluated: a `$(…)` stays a word.
        environment["INPUT_ARGUMENTS"] = "patch $(touch injected)"
        let injected = try runProgram("/bin/bash", ["-c", script], in: repo.path, environment: environment)
        #expect(injected.status == 2, "\(injected.stdout)\(injected.stderr)")
        #expect(!FileManager.default.fileExists(atPath: repo.path + "/injected"))
    }
}

/// The action's install and fingerprint steps, executed by bash with what each runner gives: a
/// `container: swift:6.x` job (root, no sudo), a GitHub-hosted Ubuntu runner (a user with sudo),
/// and a job that has neither. `apt-get`, `sudo` and `pkg-config` are small recorders on PATH:
/// what is checked is which of them the step calls, as whom.
@Suite("action.yml: install and cache keys on every runner", .offThePool)
struct GitHubActionRunnerTests {
    static func step(named name: String) throws -> String {
        let steps = try #require((try GitHubActionTests.action()["runs"] as? [String: Any])?["steps"] as? [[String: Any]])
        return try #require(steps.first { $0["name"] as? String == name }?["run"] as? String)
    }

    /// A folder of recorders: each appends its name, uid and arguments to `log` and exits 0
    /// (`pkg-config` exits 1: libgit2 is missing). `sudo` runs what follows it.
    static func recorders(in folder: String, sudo: Bool) throws -> String {
        let bin = folder + "/bin"
        try FileManager.default.createDirectory(atPath: bin, withIntermediateDirectories: true)
        let log = folder + "/calls.log"
        var tools = ["apt-get": "echo \"apt-get uid=$FAKE_UID $*\" >> '\(log)'", "pkg-config": "exit 1", "id": "[ \"$1\" = -u ] && echo \"$FAKE_UID\""]
        if sudo { tools["sudo"] = "echo \"sudo $*\" >> '\(log)'; FAKE_UID=0 \"$@\"" }
        for (name, body) in tools {
            try Data("#!/bin/bash\n\(body)\n".utf8).write(to: URL(fileURLWithPath: bin + "/" + name))
            chmod(bin + "/" + name, 0o755)
        }
        // The one real tool the step needs besides bash's built-ins.
        try FileManager.default.createSymbolicLink(atPath: bin + "/uname", withDestinationPath: "/bin/uname")
        return log
    }

    func runInstall(uid: String, sudo: Bool) throws -> (status: Int32, calls: String, output: String) {
        let folder = try TemporaryRepository(commit: false)
        let log = try Self.recorders(in: folder.root, sudo: sudo)
        // Only the recorders and the shell's basics: no real sudo or apt-get can be reached.
        let environment = ["PATH": folder.root + "/bin", "FAKE_UID": uid, "HOME": folder.root]
        let result = try runProgram("/bin/bash", ["-c", try Self.step(named: "Install libgit2")], in: folder.root, environment: environment)
        let calls = (try? String(contentsOfFile: log, encoding: .utf8)) ?? ""
        return (result.status, calls, result.stdout + result.stderr)
    }

    @Test func inASwiftContainerItInstallsAsRootWithoutSudo() throws {
        let run = try runInstall(uid: "0", sudo: false)
        #expect(run.status == 0, "\(run.output)")
        #expect(run.calls == "apt-get uid=0 update -qq\napt-get uid=0 install -y -qq libgit2-dev pkg-config\n", "\(run.calls)")
    }

    @Test func onAnUbuntuRunnerItInstallsThroughSudo() throws {
        let run = try runInstall(uid: "1001", sudo: true)
        #expect(run.status == 0, "\(run.output)")
        #expect(run.calls == "sudo apt-get update -qq\napt-get uid=0 update -qq\nsudo apt-get install -y -qq libgit2-dev pkg-config\napt-get uid=0 install -y -qq libgit2-dev pkg-config\n", "\(run.calls)")
    }

    @Test func withNeitherRootNorSudoItSaysWhatTheImageNeeds() throws {
        let run = try runInstall(uid: "1001", sudo: false)
        #expect(run.status == 4, "\(run.output)")
        #expect(run.calls.isEmpty, "\(run.calls)")
        #expect(run.output.contains("::error title=Shiplane::libgit2's headers are missing"), "\(run.output)")
    }

    /// The cache keys come from files `hashFiles()` cannot see (the action's own checkout): the
    /// step fingerprints Shiplane's sources and the lanes, and only a change to them changes a key.
    @Test func theFingerprintsFollowShiplanesSourcesAndTheLanes() throws {
        let repo = try versionedRepository()
        try repo.write("Lanes/Release.swift", "// a lane\n")
        let script = try Self.step(named: "Fingerprint Shiplane and the lanes")
        let output = repo.root + "/github_output"
        // The toolchain the lanes compile with: a `swiftc` on PATH that says which it is.
        let tools = repo.root + "/tools"
        try FileManager.default.createDirectory(atPath: tools, withIntermediateDirectories: true)
        func toolchain(_ version: String) throws {
            try Data("#!/bin/sh\necho 'Swift version \(version) (swift-\(version)-RELEASE)'\n".utf8).write(to: URL(fileURLWithPath: tools + "/swiftc"))
            chmod(tools + "/swiftc", 0o755)
        }
        try toolchain("6.0.3")
        func fingerprints(actionPath: String = packageRoot, imageVersion: String = "20261120.1") throws -> [String: String] {
            try? FileManager.default.removeItem(atPath: output)
            // The runner gives an action's steps GITHUB_ACTION_PATH: in a container job it is the
            // folder as the container sees it (`github.action_path` is the host's).
            let environment = isolatedEnvironment(home: repo.root + "/home", extra: [
                "GITHUB_OUTPUT": output, "GITHUB_ACTION_PATH": actionPath, "LANES_ROOT": repo.path,
                "PATH": tools + ":" + (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"),
                "ImageOS": "ubuntu24", "ImageVersion": imageVersion,
            ])
            let result = try runProgram("/bin/bash", ["-c", script], in: repo.path, environment: environment)
            #expect(result.status == 0, "\(result.all)")
            let lines = String(decoding: FileManager.default.contents(atPath: output) ?? Data(), as: UTF8.self).split(separator: "\n")
            return Dictionary(uniqueKeysWithValues: lines.compactMap { line in
                line.firstIndex(of: "=").map { (String(line[..<$0]), String(line[line.index(after: $0)...])) }
            })
        }
        let first = try fingerprints()
        #expect(first["shiplane"]?.count == 64 && first["lanes"]?.count == 64, "\(first)")
        #expect(first["action_path"] == packageRoot, "\(first)")
        #expect(first["system"]?.count == 33, "\(first)")
        // Another toolchain or another runner image: another system, the same sources.
        try toolchain("6.1.2")
        let otherToolchain = try fingerprints()
        #expect(otherToolchain["system"] != first["system"] && otherToolchain["lanes"] == first["lanes"], "\(otherToolchain) vs \(first)")
        try toolchain("6.0.3")
        #expect(try fingerprints(imageVersion: "20261201.2")["system"] != first["system"])
        #expect(try fingerprints() == first, "the same files give the same keys")
        try repo.write("Lanes/Release.swift", "// a lane, edited\n")
        let edited = try fingerprints()
        #expect(edited["lanes"] != first["lanes"] && edited["shiplane"] == first["shiplane"], "\(edited) vs \(first)")
        // Another Shiplane (a copy of its manifest and sources with one file changed).
        let other = repo.root + "/other-shiplane"
        try FileManager.default.createDirectory(atPath: other + "/Sources/Shiplane", withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: packageRoot + "/Package.swift", toPath: other + "/Package.swift")
        try Data("// changed\n".utf8).write(to: URL(fileURLWithPath: other + "/Sources/Shiplane/Changed.swift"))
        #expect(try fingerprints(actionPath: other)["shiplane"] != edited["shiplane"])
    }
}
