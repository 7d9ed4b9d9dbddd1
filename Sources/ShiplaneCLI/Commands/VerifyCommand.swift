import Foundation
import Shiplane

/// The options of `shiplane verify`.
struct VerifyOptions: ParsableArguments {
    static let summary = "Check downloaded release files: every checksum, every signature, and that the SBOM and provenance name exactly the files"

    @Argument(help: "The folder the release's files were downloaded to, or the release's address (https://github.com/OWNER/REPO/releases/tag/TAG), whose files are downloaded first")
    var folder: String

    @Option(name: .customLong("tag"), help: "With a repository's address (https://HOST/OWNER/REPO): the release's tag")
    var tag: String?

    @Option(name: .customLong("forge"), help: "With an address on a host other than github.com: github (GitHub Enterprise), gitea (Gitea, Forgejo) or gitlab (a GitLab address with /-/ is known without it)")
    var forge: String?

    @Option(name: .customLong("download-to"), help: "With an address: keep the downloaded files in this folder (new or empty) instead of a temporary one")
    var downloadTo: String?

    @Option(name: .customLong("max-download-size"), help: "With an address: the largest file downloaded, in bytes or with K, M, G (powers of 1024); default 4G")
    var maxDownloadSize: String?

    @Option(name: .customLong("ssh-allowed-signers"), help: "An allowed_signers file (ssh-keygen's format) for the .sig files")
    var sshAllowedSigners: String?

    @Option(name: .customLong("ssh-key"), help: "An SSH public key file (.pub) trusted for the .sig files; repeatable")
    var sshKeys: [String] = []

    @Option(name: .customLong("minisign-key"), help: "The minisign public key for the .minisig files: the minisign.pub file, or its key (RW…)")
    var minisignKey: String?

    @Option(name: .customLong("gpg-key"), help: "An armored OpenPGP public key file for the .asc files (checked by gpg, against this key alone)")
    var gpgKey: String?

    @Option(name: .customLong("attestation-key"), help: "The provenance key's public half (a PEM public key file, or an ssh-ed25519 .pub file): every provenance envelope must be signed by it")
    var attestationKey: String?

    @Flag(name: .customLong("github-attestations"), help: "With a GitHub release's address: also fetch each file's attestations from GitHub's attestations API and require one per file that names it, signed by a key given")
    var gitHubAttestations = false

    @Option(name: .customLong("commit"), help: "The commit the release was made from (the tag's commit): every provenance statement must name it as its source")
    var commit: String?
}

/// Removes the download folders (`shiplane-verify-PID-…`) that runs of `verify` killed before
/// their cleanup left in `parent`: those whose process has ended. A folder of a running verify is
/// in use and stays (and so does one whose process id a later process took, until it ends).
func sweepStaleDownloadFolders(in parent: String) {
    let prefix = "shiplane-verify-"
    for name in (try? FileManager.default.contentsOfDirectory(atPath: parent)) ?? [] where name.hasPrefix(prefix) {
        guard let pid = name.dropFirst(prefix.count).split(separator: "-").first.flatMap({ Int32($0) }), pid > 0 else { continue }
        if kill(pid, 0) != 0 && errno == ESRCH {
            try? FileManager.default.removeItem(atPath: parent + "/" + name)
        }
    }
}

/// A size as `--max-download-size` takes it: bytes, or a number followed by K, M, G or T (powers
/// of 1024, `KiB`/`KB` alike); nil for anything else, zero, or more than fits.
func byteCount(_ text: String) -> Int64? {
    var digits = text.trimmingCharacters(in: .whitespaces).uppercased()
    for suffix in ["IB", "B"] where digits.hasSuffix(suffix) && digits.count > suffix.count {
        digits.removeLast(suffix.count)
        break
    }
    var shift: Int64 = 0
    if let unit = digits.last, let index = ["K", "M", "G", "T"].firstIndex(of: String(unit)) {
        shift = Int64(10 * (index + 1))
        digits.removeLast()
    }
    guard !digits.isEmpty, digits.allSatisfy(\.isASCII), let number = Int64(digits), number > 0,
          number <= Int64.max >> shift else { return nil }
    return number << shift
}

/// `shiplane verify FOLDER|ADDRESS [keys]`: one line per check that passed; the problems, each
/// naming its file, as the error (exit 1); a release with no signature at all, whose checksums
/// match, says so and what was checked (exit 9). An address is downloaded first (`ReleaseDownload`),
/// and the tag's commit as the forge gives it is the provenance's expected source commit.
enum VerifyCommand {
    static func run(session: CommandSession, environment: [String: String], options: VerifyOptions) async throws -> Int32 {
        func absolute(_ path: String) -> String { path.hasPrefix("/") ? path : session.currentDirectory + "/" + path }
        func read(_ path: String, _ option: String) throws -> String {
            guard let data = FileManager.default.contents(atPath: absolute(path)) else {
                throw UsageError("cannot read \(path), given to \(option)", suggestion: "name an existing file")
            }
            return String(decoding: data, as: UTF8.self)
        }
        var keys = ReleaseVerification.Keys()
        keys.sshAllowedSigners = try options.sshAllowedSigners.map { try read($0, "--ssh-allowed-signers") }
        keys.sshPublicKeys = try options.sshKeys.map { try read($0, "--ssh-key") }
        if let minisign = options.minisignKey {
            keys.minisignPublicKey = FileManager.default.fileExists(atPath: absolute(minisign)) ? try read(minisign, "--minisign-key") : minisign
        }
        keys.openPGPPublicKey = try options.gpgKey.map { try read($0, "--gpg-key") }
        keys.attestationPublicKey = try options.attestationKey.map { try read($0, "--attestation-key") }
        keys.sourceCommit = options.commit?.trimmingCharacters(in: .whitespacesAndNewlines)
        var folder = absolute(options.folder)
        var temporary: String?
        defer { if let temporary { try? FileManager.default.removeItem(atPath: temporary) } }
        var isFolder: ObjCBool = false
        let isAddress = options.folder.contains("://")
        var downloadedTarget: ReleaseDownload.Target?
        if !isAddress {
            guard options.tag == nil, options.forge == nil, options.downloadTo == nil, options.maxDownloadSize == nil, !options.gitHubAttestations else {
                throw UsageError("--tag, --forge, --download-to, --max-download-size and --github-attestations go with a release's address, not a folder", suggestion: "give the release's address, or leave them out")
            }
        } else {
            let forge: ReleaseDownload.Forge?
            if let name = options.forge {
                guard let known = ReleaseDownload.Forge(rawValue: name.lowercased()) else {
                    throw UsageError("--forge is github, gitea or gitlab, not \(name)", suggestion: "for another forge, download the release's files into a folder and give the folder")
                }
                forge = known
            } else {
                forge = nil
            }
            var maxFileBytes = ReleaseDownload.defaultMaxFileBytes
            if let size = options.maxDownloadSize {
                guard let bytes = byteCount(size) else {
                    throw UsageError("--max-download-size takes a size such as 500M, 2G or 1048576, not \(size)", suggestion: "give bytes, or a number followed by K, M or G")
                }
                maxFileBytes = bytes
            }
            let target = try ReleaseDownload.target(address: options.folder, tag: options.tag, forge: forge, environment: environment)
            guard !options.gitHubAttestations || target.forge == .github else {
                throw UsageError("--github-attestations goes with a GitHub release's address", suggestion: "leave it out for \(target.forge.rawValue)")
            }
            downloadedTarget = target
            if let keep = options.downloadTo {
                folder = absolute(keep)
                if FileManager.default.fileExists(atPath: folder, isDirectory: &isFolder) {
                    guard isFolder.boolValue, (try? FileManager.default.contentsOfDirectory(atPath: folder))?.isEmpty == true else {
                        throw UsageError("\(keep) is not an empty folder", suggestion: "name a new or empty folder for --download-to")
                    }
                } else {
                    do { try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true) }
                    catch { throw UsageError("cannot make the folder \(keep) for --download-to", suggestion: "name a folder that can be made") }
                }
            } else {
                let parent = environment["TMPDIR"].flatMap { $0.isEmpty ? nil : $0 } ?? "/tmp"
                sweepStaleDownloadFolders(in: parent)
                // Named with this process's id, so a run killed mid-download leaves a folder the
                // next run can tell from one in use, and removes.
                let base = parent + "/shiplane-verify-\(getpid())-XXXXXX"
                var template = Array(base.utf8CString)
                guard let made = mkdtemp(&template) else { throw UsageError("cannot make a temporary folder under \(base)", suggestion: "set TMPDIR to a writable folder") }
                folder = String(cString: made)
                temporary = folder
            }
            let transport = HTTPTransport(sender: LiveHTTPClient(), redactor: session.redactor)
            let downloaded = try await ReleaseDownload.download(target, into: folder, environment: environment, transport: transport, maxFileBytes: maxFileBytes)
            session.out.line("Downloaded \(downloaded.files.count) file\(downloaded.files.count == 1 ? "" : "s") of \(target.owner)/\(target.repository) \(target.tag) from \(target.forge.name); \(target.tag) is commit \(downloaded.commit.map { String($0.prefix(12)) } ?? "?")")
            if let given = keys.sourceCommit, let commit = downloaded.commit, !commit.lowercased().hasPrefix(given.lowercased()) {
                throw VerificationFailed(problems: [VerificationProblem(file: target.tag, "--commit \(given) is not the commit \(target.tag) points at on the forge (\(commit))")])
            }
            keys.sourceCommit = keys.sourceCommit ?? downloaded.commit
        }
        var outcome = try ReleaseVerification.verify(folder: folder, keys: keys, environment: environment)
        if options.gitHubAttestations, let target = downloadedTarget {
            let names = ((try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []).filter { !$0.hasPrefix(".") }.sorted()
            let transport = HTTPTransport(sender: LiveHTTPClient(), redactor: session.redactor)
            let found = try await ReleaseDownload.gitHubAttestations(target, files: ReleaseVerification.releasedFiles(names), in: folder,
                                                                     environment: environment, transport: transport)
            let attested = try ReleaseVerification.checkGitHubAttestations(found, folder: folder, keys: keys, environment: environment)
            outcome.passed += attested.passed
            outcome.problems += attested.problems
        }
        let width = outcome.passed.map(\.file.count).max() ?? 0
        for passed in outcome.passed {
            session.out.line("✓ " + passed.file.padding(toLength: width, withPad: " ", startingAt: 0) + "  " + passed.check)
        }
        guard outcome.problems.isEmpty else { throw VerificationFailed(problems: outcome.problems) }
        if let checksumFiles = outcome.unsigned {
            throw ReleaseUnsigned(checksumFiles: checksumFiles, matched: outcome.passed.filter { $0.check.hasPrefix("SHA-256 matches") }.count)
        }
        session.out.line("All \(outcome.passed.count) checks passed.")
        return ShiplaneExitCode.success.rawValue
    }
}
