import Foundation
import Testing

/// Shell completions, exercised in a real bash: the generated script is sourced and its function
/// called the way bash calls it on Tab.
@Suite("Shell completions: built-in commands, their options, and lane names", .offThePool)
struct CompletionTests {
    /// Completes `words` as bash calls the function on Tab: `current` is readline's word (what
    /// the replies replace), which is the last of `words` unless bash split that word at `=` or `:`.
    func complete(_ words: [String], current: String? = nil, in repo: TemporaryRepository, cache: String) throws -> [String] {
        let script = try repo.shiplane(["--generate-completion-script", "bash"])
        #expect(script.status == 0, "\(script.all)")
        try repo.write(".completion.bash", script.stdout)
        let quoted = words.map { "'\($0)'" }.joined(separator: " ")
        let word = current.map { "'\($0)'" } ?? #""${COMP_WORDS[COMP_CWORD]}""#
        let program = """
        source .completion.bash
        COMP_WORDS=(\(quoted)); COMP_CWORD=$(( ${#COMP_WORDS[@]} - 1 ))
        COMP_LINE="${COMP_WORDS[*]}"; COMP_POINT=${#COMP_LINE}; COMPREPLY=()
        _shiplane_and_lanes shiplane \(word) "${COMP_WORDS[COMP_CWORD-1]}"
        printf '%s\\n' "${COMPREPLY[@]}"
        """
        let binFolder = URL(fileURLWithPath: shiplaneBinary).deletingLastPathComponent().path
        var environment = isolatedEnvironment(home: repo.root + "/home", extra: ["SHIPLANE_CACHE_DIR": cache])
        environment["PATH"] = binFolder + ":" + (environment["PATH"] ?? "")
        let result = try runProgram("/bin/bash", ["-c", program], in: repo.path, environment: environment)
        #expect(result.status == 0, "\(result.stdout)\(result.stderr)")
        return result.stdout.split(separator: "\n").map(String.init)
    }

    @Test func commandsOptionsAndLaneNamesCompleteWithoutCompilingALane() throws {
        let repo = try TemporaryRepository()
        try repo.write("Lanes/Release.swift", "import Shiplane\nstruct Release: Lane { func run(_ lane: LaneContext) async throws {} }\nstruct BetaDeployLane: Lane { func run(_ lane: LaneContext) async throws {} }\n")
        let cache = repo.root + "/completion-cache"
        #expect(try complete(["shiplane", "r"], in: repo, cache: cache) == ["resume", "rollback", "release"])
        #expect(try complete(["shiplane", "be"], in: repo, cache: cache) == ["beta-deploy"])
        #expect(try complete(["shiplane", "bump", "--c"], in: repo, cache: cache) == ["--commit"])
        #expect(Set(try complete(["shiplane", "changelog", "--t"], in: repo, cache: cache)) == ["--to", "--template", "--tag-pattern"])
        #expect(try complete(["shiplane", "action", "commitV"], in: repo, cache: cache) == ["commitVersionBump"])
        #expect(!FileManager.default.fileExists(atPath: cache + "/lanes"), "completing compiled nothing")
    }

    @Test func everyShellGetsAScriptAndAnUnknownShellIsAUsageError() throws {
        let repo = try TemporaryRepository()
        for shell in ["bash", "zsh", "fish"] {
            let result = try repo.shiplane(["--generate-completion-script", shell])
            #expect(result.status == 0, "\(result.all)")
            #expect(result.stdout.contains("---lane-names"), "\(shell) completes lane names")
            #expect(result.stdout.contains("changelog") && result.stdout.contains("tag-pattern"))
        }
        let bad = try repo.shiplane(["--generate-completion-script", "tcsh"])
        #expect(bad.status == 2)
        #expect(bad.stderr.contains("bash, zsh or fish"))
    }

    /// A lane's options complete from the catalog its compiled lanes left in the cache (global
    /// options before the lane are skipped, options already given are not offered again); before
    /// the lanes are compiled there is nothing to offer, and completing compiles nothing.
    @Test func aLanesOptionsCompleteOnceItsLanesAreCompiled() throws {
        let repo = try TemporaryRepository()
        try repo.write("Lanes/Release.swift", """
        import Shiplane
        struct Release: Lane {
            @Option(help: "How far") var level: String = "patch"
            @Flag(help: "Tag it") var tag = false
            @Option(help: "Where") var remote: String?
            func run(_ lane: LaneContext) async throws {}
        }
        """)
        let cache = repo.root + "/completion-cache"
        #expect(try complete(["shiplane", "release", "--"], in: repo, cache: cache).isEmpty)
        #expect(!FileManager.default.fileExists(atPath: cache + "/lanes"), "completing compiled nothing")
        let listed = try repo.shiplane(["lanes"], environment: ["SHIPLANE_CACHE_DIR": cache])
        #expect(listed.status == 0, "\(listed.all)")
        #expect(Set(try complete(["shiplane", "release", "--"], in: repo, cache: cache)) == ["--level", "--tag", "--remote"])
        #expect(try complete(["shiplane", "--dry-run", "release", "--r"], in: repo, cache: cache) == ["--remote"])
        #expect(Set(try complete(["shiplane", "release", "--tag", "--"], in: repo, cache: cache)) == ["--level", "--remote"])
        #expect(try complete(["shiplane", "relase", "--"], in: repo, cache: cache).isEmpty, "no lane of that name")
        // After the lane's name, its options only: no built-in command, not even for an empty word.
        #expect(Set(try complete(["shiplane", "release", ""], in: repo, cache: cache)) == ["--level", "--tag", "--remote"])
        // After an option that takes a value: no command and no option.
        #expect(try complete(["shiplane", "release", "--level", ""], in: repo, cache: cache).isEmpty)
    }

    /// Completes a command line the way bash 5 sees it with its default COMP_WORDBREAKS (seen
    /// with a real Tab in an interactive bash): `--bump=mi` is three words, `--bump` `=` `mi`, and
    /// readline's word is `mi`; `--bump=` ends at the word `=`, and readline's word is empty.
    func complete(line: String, in repo: TemporaryRepository, cache: String) throws -> [String] {
        var words: [String] = []
        for token in line.split(separator: " ", omittingEmptySubsequences: true) {
            var part = ""
            for character in token {
                if character == "=" || character == ":" {
                    if !part.isEmpty { words.append(part) }
                    words.append(String(character))
                    part = ""
                } else {
                    part.append(character)
                }
            }
            if !part.isEmpty { words.append(part) }
        }
        if line.hasSuffix(" ") { words.append("") }
        let current = line.hasSuffix(" ") ? "" : String(line.split(whereSeparator: { " =:".contains($0) }).last ?? "")
        return try complete(words, current: line.last.map { "=:".contains($0) } == true ? "" : current, in: repo, cache: cache)
    }

    /// A private lane is not offered; a lane's enum options (a `CaseIterable` enum, `VersionBump`)
    /// complete their values in every form: `--bump <Tab>`, `--bump=<Tab>`, `bump:<Tab>`, and
    /// the word whole where COMP_WORDBREAKS lacks `=`; an option given in any form is not offered again.
    @Test func privateLanesAreLeftOutAndEveryOptionFormCompletesItsValues() throws {
        let repo = try TemporaryRepository()
        try repo.write("Lanes/Release.swift", """
        import Shiplane
        enum Channel: String, CaseIterable, ExpressibleByArgument { case beta, stable }
        struct Release: Lane {
            @Option(help: "How far") var bump: VersionBump = .auto
            @Option(help: "Where") var channel: Channel = .beta
            @Flag(help: "Tag it") var tag = false
            func run(_ lane: LaneContext) async throws {}
        }
        struct Helper: Lane {
            static let isPrivate = true
            func run(_ lane: LaneContext) async throws {}
        }
        struct Cleanup: Lane {
            func run(_ lane: LaneContext) async throws {}
        }
        extension Cleanup {
            static var isPrivate: Bool { true }
        }
        struct Outer: Lane {
            struct Inner: Lane {
                static let isPrivate = true
                func run(_ lane: LaneContext) async throws {}
            }
            func run(_ lane: LaneContext) async throws {}
        }
        """)
        let cache = repo.root + "/completion-cache"
        #expect(try complete(["shiplane", ""], in: repo, cache: cache).filter { !$0.hasPrefix("-") }.contains("release"))
        let lanes = try complete(["shiplane", ""], in: repo, cache: cache)
        #expect(lanes.contains("release") && lanes.contains("outer"), "\(lanes)")
        #expect(!lanes.contains("helper") && !lanes.contains("cleanup") && !lanes.contains("inner"), "private lanes: \(lanes)")
        let listed = try repo.shiplane(["lanes"], environment: ["SHIPLANE_CACHE_DIR": cache])
        #expect(listed.status == 0, "\(listed.all)")
        #expect(listed.stdout.contains("Private (callable from lanes): ") && listed.stdout.contains("helper"), "\(listed.stdout)")
        let levels: Set = ["major", "minor", "patch", "auto", "release"]
        #expect(Set(try complete(line: "shiplane release --bump ", in: repo, cache: cache)) == levels)
        #expect(Set(try complete(line: "shiplane release --bump=", in: repo, cache: cache)) == levels)
        #expect(try complete(line: "shiplane release --bump=mi", in: repo, cache: cache) == ["minor"])
        #expect(Set(try complete(line: "shiplane release bump:", in: repo, cache: cache)) == levels)
        #expect(try complete(line: "shiplane release bump:pa", in: repo, cache: cache) == ["patch"])
        #expect(Set(try complete(line: "shiplane release --channel=", in: repo, cache: cache)) == ["beta", "stable"])
        #expect(Set(try complete(line: "shiplane release channel:", in: repo, cache: cache)) == ["beta", "stable"])
        #expect(Set(try complete(line: "shiplane release tag:", in: repo, cache: cache)) == ["true", "false"])
        #expect(Set(try complete(line: "shiplane --dry-run release --bump=minor --", in: repo, cache: cache)) == ["--channel", "--tag"])
        #expect(Set(try complete(line: "shiplane release bump:minor channel:beta --", in: repo, cache: cache)) == ["--tag"])
        // COMP_WORDBREAKS without `=` and `:`: the word is whole, and so are the replies.
        #expect(try complete(["shiplane", "release", "--bump=mi"], in: repo, cache: cache) == ["--bump=minor"])
        #expect(try complete(["shiplane", "release", "channel:st"], in: repo, cache: cache) == ["channel:stable"])
    }

    /// `bump` completes its levels and `help` the commands it explains (both offered nothing).
    @Test func bumpLevelsAndHelpTopicsComplete() throws {
        let repo = try TemporaryRepository()
        let cache = repo.root + "/completion-cache"
        #expect(Set(try complete(["shiplane", "bump", ""], in: repo, cache: cache)).isSuperset(of: ["major", "minor", "patch", "auto"]))
        #expect(try complete(["shiplane", "bump", "mi"], in: repo, cache: cache) == ["minor"])
        #expect(try complete(["shiplane", "help", "ch"], in: repo, cache: cache) == ["changelog"])
        #expect(Set(try complete(["shiplane", "help", ""], in: repo, cache: cache)).isSuperset(of: ["bump", "changelog", "rollback", "lanes"]))
    }
}
