import CShiplane
import Foundation
import Git
import Shiplane
import Testing

/// `strace` (Scripts/setup installs it; the tests that trace fail without it).
private let startupStrace: String? = ["/usr/bin/strace", "/bin/strace"].first { FileManager.default.isExecutableFile(atPath: $0) }

/// strace traces on Linux only.
private let runsOnLinux: Bool = {
    #if os(Linux)
    return true
    #else
    return false
    #endif
}()

/// True when the libgit2 this process links uses mbedTLS (Debian's and Ubuntu's libgit2): mbedTLS is
/// then among the libraries loaded at its start.
private let libgit2UsesMbedTLS: Bool = {
    #if os(Linux)
    // /proc files say they are empty: read to the end rather than by the size.
    guard let maps = FileHandle(forReadingAtPath: "/proc/self/maps") else { return false }
    defer { try? maps.close() }
    return String(decoding: maps.readDataToEndOfFile(), as: UTF8.self).contains("libmbedtls")
    #else
    return false
    #endif
}()

/// What a command does before its work (issue 36 item 6): a run that changes nothing never starts
/// libgit2, and libgit2's CA bundle (which, as Debian builds it with mbedTLS, it parses whole when
/// it starts: about 5 ms) is read only when a TLS connection is set up. The real binary under
/// `strace` (where it is installed), and libgit2 in this process.
@Suite("The work before a run: no libgit2 for a run without effects, the CA bundle only for TLS", .serialized, .offThePool)
struct StartupWorkTests {
    /// The system's CA bundles, where libgit2's mbedTLS build looks for its default one.
    private static let certificateFolder = "/etc/ssl/certs"

    /// Runs `shiplane arguments` in `repo` under `strace -f`, tracing the calls that name files;
    /// the exit code and the lines of the trace that name `certificateFolder`.
    private func traced(_ arguments: [String], in repo: TemporaryRepository, strace: String) throws -> (status: Int32, output: String, certificateLines: [String]) {
        let trace = repo.root + "/trace.txt"
        let result = try runProgram(
            strace, ["-f", "-qq", "-o", trace, "-e", "trace=%file", shiplaneBinary] + arguments, in: repo.path, environment: repo.environment)
        let text = (try? String(contentsOfFile: trace, encoding: .utf8)) ?? ""
        return (result.status, result.all, text.split(separator: "\n").map(String.init).filter { $0.contains(Self.certificateFolder) })
    }

    /// A cached lane that does nothing: neither process (shiplane, the lane program) looks at the
    /// CA bundle, so neither started libgit2 — the run's look for a stale `index.lock` finds the
    /// work tree's git folder by itself.
    @Test(.enabled(if: runsOnLinux, "strace is Linux's")) func aRunWithoutEffectsNeverStartsLibgit2() throws {
        let repo = try TemporaryRepository()
        try repo.write("Lanes/Noop.swift", "import Shiplane\n\nstruct Noop: Lane {\n    func run(_ lane: LaneContext) async throws {}\n}\n")
        try repo.git("add", "Lanes")
        try repo.git("commit", "-q", "-m", "chore: lanes")
        let compiled = try repo.shiplane(["noop"])
        #expect(compiled.status == 0, "\(compiled.all)")
        let run = try traced(["noop"], in: repo, strace: try #require(startupStrace))
        #expect(run.status == 0, "\(run.output)")
        #expect(run.output.contains("lane noop succeeded"), "\(run.output)")
        #expect(run.certificateLines.isEmpty, "\(run.certificateLines.joined(separator: "\n"))")
    }

    /// `bump patch --commit --tag` opens the repository (libgit2 starts) but connects nowhere: the
    /// CA bundle is never opened. git checks the commit and the tag.
    @Test(.enabled(if: libgit2UsesMbedTLS)) func aBumpWithoutAPushNeverReadsTheCABundle() throws {
        let repo = try versionedRepository()
        let run = try traced(["bump", "patch", "--commit", "--tag"], in: repo, strace: try #require(startupStrace))
        #expect(run.status == 0, "\(run.output)")
        #expect(try repo.git("cat-file", "-t", "v1.2.4") == "tag")
        #expect(repo.read("VERSION") == "1.2.4\n")
        #expect(!run.certificateLines.contains { $0.contains("open") }, "\(run.certificateLines.joined(separator: "\n"))")
    }

    /// The word a run leaves beside the index while it writes it (`shiplane-index-writer`, which
    /// tells a later run whether a left `index.lock` is a dead Shiplane's) is written in place:
    /// no temporary file, no fsync, no rename (it has to outlive the process, not the machine;
    /// an atomic write made it one of a bump's fsyncs). It is gone once the bump ends.
    @Test(.enabled(if: runsOnLinux, "strace is Linux's")) func theIndexWritersWordCostsNoFsync() throws {
        let repo = try versionedRepository()
        let trace = repo.root + "/trace.txt"
        let result = try runProgram(
            try #require(startupStrace), ["-f", "-qq", "-y", "-o", trace, "-e", "trace=fsync,fdatasync,rename,renameat,renameat2,openat", shiplaneBinary, "bump", "patch", "--commit", "--tag"],
            in: repo.path, environment: repo.environment)
        #expect(result.status == 0, "\(result.all)")
        #expect(try repo.git("log", "-1", "--format=%s") == "chore(release): 1.2.4")
        let lines = ((try? String(contentsOfFile: trace, encoding: .utf8)) ?? "").split(separator: "\n").map(String.init)
        let marker = lines.filter { $0.contains("shiplane-index-writer") }
        // The word was written (the commit wrote the index), in place.
        #expect(marker.contains { $0.contains("openat(") && $0.contains("O_CREAT") }, "\(marker.joined(separator: "\n"))")
        #expect(!marker.contains { $0.contains("rename") }, "\(marker.joined(separator: "\n"))")
        let syncs = lines.filter { $0.contains("fsync(") || $0.contains("fdatasync(") }
        #expect(!syncs.contains { $0.contains("shiplane-index-writer") || $0.contains(".dat.nosync") }, "\(syncs.joined(separator: "\n"))")
        #expect(!FileManager.default.fileExists(atPath: repo.path + "/.git/shiplane-index-writer"))
    }

    /// In this process: once libgit2 has started its CA bundle is put off (not parsed), and
    /// setting up a TLS connection parses it first — here an HTTPS push to the discard port, where
    /// nothing listens: libgit2 sets the TLS session up before it connects.
    @Test(.enabled(if: libgit2UsesMbedTLS)) func theCABundleIsParsedWhenATLSConnectionIsSetUp() async throws {
        let repo = try TemporaryRepository()
        let repository = try Repository.open(repo.path)
        let before = shiplane_ca_certificates_state()
        // 2 when another test of this process set up a TLS connection already.
        #expect(before == 1 || before == 2, "libgit2 parsed its CA bundle when it started (state \(before))")
        let pushed: Result<Void, any Error> = await withCheckedContinuation { continuation in
            Thread.detachNewThread {
                continuation.resume(returning: Result {
                    _ = try repository.push(remote: "https://127.0.0.1:9/remote.git", refspecs: ["refs/heads/main"], credentials: .token("unused"))
                })
            }
        }
        #expect((try? pushed.get()) == nil, "the push to a closed port succeeded")
        #expect(shiplane_ca_certificates_state() == 2)
        #expect(shiplane_ca_certificates_load() == 0, "a second load does nothing")
    }

    /// A push over HTTPS still verifies the server against the system's whole CA bundle, now that
    /// the bundle is parsed when the TLS connection is set up rather than when libgit2 starts (in
    /// the source build through DeferredCACertificates.c, in the release bundle through
    /// bundle-support/deferred_ca_static.c): run with the binary under test (`SHIPLANE_TEST_BINARY`
    /// is the bundle's in `Scripts/bundle --check`) against a loopback HTTPS server whose
    /// certificate is made here. In a mount namespace where the system's bundle also holds that
    /// certificate the handshake succeeds and the push fails on the server's answer (404); with
    /// the system's bundle alone it fails on the certificate. Nothing is pushed or kept either way.
    @Test(.enabled(if: libgit2UsesMbedTLS && Self.mountsInANamespace, "a private mount namespace (unshare -m, as root) puts a certificate into the system's CA bundle for one process"))
    func aPushOverHTTPSVerifiesTheServerAgainstTheCABundle() throws {
        let repo = try versionedRepository()
        let folder = repo.root
        let made = try runProgram(
            "/usr/bin/env",
            ["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", folder + "/key.pem", "-out", folder + "/cert.pem",
             "-days", "2", "-subj", "/CN=localhost", "-addext", "subjectAltName=DNS:localhost"],
            in: folder, environment: repo.environment)
        try #require(made.status == 0, "\(made.all)")
        let system = try String(contentsOfFile: Self.certificateFolder + "/ca-certificates.crt", encoding: .utf8)
        let certificate = try String(contentsOfFile: folder + "/cert.pem", encoding: .utf8)
        try (system + certificate).write(toFile: folder + "/bundle.pem", atomically: true, encoding: .utf8)
        let server = try HTTPSNotFoundServer(certificate: folder + "/cert.pem", key: folder + "/key.pem")
        defer { server.stop() }
        try repo.git("remote", "add", "origin", "https://localhost:\(server.port)/repo.git")
        let head = try repo.git("rev-parse", "HEAD")
        let bump = ["bump", "patch", "--commit", "--tag", "--push"]

        let trusted = try runProgram(
            "/usr/bin/unshare",
            ["-m", "sh", "-c", "mount --bind \"$1\" /etc/ssl/certs/ca-certificates.crt && shift && exec \"$@\"", "sh", folder + "/bundle.pem", shiplaneBinary] + bump,
            in: repo.path, environment: repo.environment)
        #expect(trusted.status != 0, "\(trusted.all)")
        #expect(trusted.all.contains("404"), "the handshake with a trusted certificate did not reach the server's answer:\n\(trusted.all)")
        #expect(!trusted.all.lowercased().contains("certificate"), "\(trusted.all)")
        #expect(server.requests >= 1)

        let untrusted = try runProgram(shiplaneBinary, bump, in: repo.path, environment: repo.environment)
        #expect(untrusted.status != 0, "\(untrusted.all)")
        #expect(untrusted.all.lowercased().contains("certificate"), "an untrusted certificate was not refused as one:\n\(untrusted.all)")

        // Each failed push rolled its bump back.
        #expect(try repo.git("rev-parse", "HEAD") == head)
        #expect(repo.read("VERSION") == "1.2.3\n")
        #expect(try repo.git("tag", "--list", "v1.2.4").isEmpty)
    }

    /// True where this process may make a mount namespace and bind a file in it (root on Linux).
    private static let mountsInANamespace: Bool = {
        #if os(Linux)
        guard getuid() == 0, FileManager.default.isExecutableFile(atPath: "/usr/bin/unshare") else { return false }
        return (try? runProgram("/usr/bin/unshare", ["-m", "true"], in: "/", environment: ProcessInfo.processInfo.environment).status) == 0
        #else
        return false
        #endif
    }()

    /// A linked work tree's run record and index lock: `RunStore.gitDirectory(ofWorkTree:)` reads
    /// the `.git` file as libgit2 does, and a lock a dead Shiplane left there is removed.
    @Test func aLinkedWorkTreesGitFolderIsFoundWithoutLibgit2() throws {
        let repo = try TemporaryRepository()
        let linked = repo.root + "/linked"
        try repo.git("worktree", "add", "-q", "-b", "side", linked)
        let gitFolder = try RunStore.gitDirectory(ofWorkTree: linked)
        #expect(URL(fileURLWithPath: gitFolder).resolvingSymlinksInPath().path
            == URL(fileURLWithPath: try Repository.open(linked).gitDirectory).resolvingSymlinksInPath().path)
        #expect(try RunStore.gitDirectory(ofWorkTree: repo.path) == repo.path + "/.git")
        #expect(throws: RepositoryProblem.self) { try RunStore.gitDirectory(ofWorkTree: repo.root + "/home") }

        // A process that has ended left the lock and its word beside it.
        let ended = try runProgram("/bin/sh", ["-c", "echo $$"], in: repo.root, environment: repo.environment)
        let pid = try #require(Int32(ended.stdout.trimmingCharacters(in: .whitespacesAndNewlines)))
        try Data().write(to: URL(fileURLWithPath: gitFolder + "/index.lock"))
        try Data("pid \(pid)\n".utf8).write(to: URL(fileURLWithPath: gitFolder + "/shiplane-index-writer"))
        let said = try StaleIndexLock.clear(root: linked)
        #expect(said?.contains("index.lock") == true)
        #expect(!FileManager.default.fileExists(atPath: gitFolder + "/index.lock"))
    }
}

/// A loopback HTTPS server (Python's standard library, in a child process) that answers every
/// request 404 and writes one line per request to a log: where a TLS client's handshake succeeded,
/// it got that far. It ends by itself after 120 seconds; `stop()` ends it sooner.
private final class HTTPSNotFoundServer: @unchecked Sendable {
    private let log: String
    private let listener: PythonListener

    var port: Int { listener.port }

    /// The requests answered so far.
    var requests: Int {
        ((try? String(contentsOfFile: log, encoding: .utf8)) ?? "").split(separator: "\n").count
    }

    init(certificate: String, key: String) throws {
        log = (certificate as NSString).deletingLastPathComponent + "/https-requests.log"
        let script = #"""
        import http.server, os, ssl, sys, threading
        certificate, key, log = sys.argv[1], sys.argv[2], sys.argv[3]
        threading.Timer(120, lambda: os._exit(0)).start()
        class NotFound(http.server.BaseHTTPRequestHandler):
            def answer(self):
                with open(log, "a") as f:
                    f.write(self.command + " " + self.path + "\n")
                self.send_response(404)
                self.send_header("Content-Length", "0")
                self.end_headers()
            do_GET = do_POST = answer
            def log_message(self, *args):
                pass
        server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), NotFound)
        context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        context.load_cert_chain(certificate, key)
        server.socket = context.wrap_socket(server.socket, server_side=True)
        print(server.server_address[1], flush=True)
        server.serve_forever()
        """#
        listener = try PythonListener(script: script, arguments: [certificate, key, log], what: "the HTTPS server")
    }

    func stop() { listener.stop() }
}
