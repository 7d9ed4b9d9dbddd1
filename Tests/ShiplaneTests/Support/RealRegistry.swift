import Foundation

/// Debian's `docker-registry` (the CNCF distribution registry) on a loopback port, its config,
/// storage and optional bcrypt htpasswd file in a temporary folder that `stop()` removes.
final class RealRegistry: @unchecked Sendable {
    // Set once in init, read afterwards: no mutation to guard.
    let folder: String
    let port: Int
    let username: String?
    let password: String?
    private let process = Process()

    var host: String { "127.0.0.1:\(port)" }

    /// Starts the registry; with `username`, only that user with `password` may pull or push.
    /// `deletes: false` turns deletes off, as many hosted registries have them.
    init(username: String? = nil, password: String? = nil, deletes: Bool = true) throws {
        for tool in ["docker-registry", "skopeo"] where (try? runTool(["which", tool]).status) != 0 {
            throw TestFailure("\(tool) is not installed: run Scripts/setup (apt-get install docker-registry skopeo apache2-utils)")
        }
        folder = NSTemporaryDirectory() + "shiplane-registry-\(UUID().uuidString)"
        self.username = username
        self.password = password
        try FileManager.default.createDirectory(atPath: folder + "/data", withIntermediateDirectories: true)
        let free = try runTool(["python3", "-c", "import socket; s=socket.socket(); s.bind(('127.0.0.1', 0)); print(s.getsockname()[1])"])
        guard let port = Int(free.output.trimmingCharacters(in: .whitespacesAndNewlines)) else {
            throw TestFailure("no free port: \(free.output)")
        }
        self.port = port
        var auth = ""
        if let username, let password {
            let made = try runTool(["htpasswd", "-Bbc", folder + "/htpasswd", username, password])
            guard made.status == 0 else { throw TestFailure("htpasswd failed: \(made.output)") }
            auth = "auth:\n  htpasswd:\n    realm: shiplane-test\n    path: \(folder)/htpasswd\n"
        }
        let config = """
        version: 0.1
        log:
          level: error
          accesslog:
            disabled: true
        storage:
          filesystem:
            rootdirectory: \(folder)/data
          delete:
            enabled: \(deletes)
        http:
          addr: 127.0.0.1:\(port)
        \(auth)
        """
        try config.write(toFile: folder + "/config.yml", atomically: true, encoding: .utf8)
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["docker-registry", "serve", folder + "/config.yml"]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        // Ready once GET /v2/ answers (200, or 401 with auth).
        for _ in 0..<200 {
            let probe = try runTool(["python3", "-c", "import urllib.request,sys\ntry:\n urllib.request.urlopen('http://127.0.0.1:\(port)/v2/')\nexcept urllib.error.HTTPError as e:\n sys.exit(0 if e.code == 401 else 1)\nexcept Exception:\n sys.exit(1)"])
            if probe.status == 0 { return }
            guard process.isRunning else { break }
            usleep(50_000)
        }
        stop()
        throw TestFailure("docker-registry did not start on port \(port)")
    }

    /// The environment a lane needs to sign in.
    var environment: [String: String] {
        var variables: [String: String] = [:]
        if let username { variables["REGISTRY_USERNAME"] = username }
        if let password { variables["REGISTRY_PASSWORD"] = password }
        return variables
    }

    /// `skopeo` with this registry's credentials and no TLS; returns its status and output.
    func skopeo(_ arguments: [String]) throws -> (status: Int32, output: String) {
        var all = ["skopeo", "--insecure-policy"] + arguments
        if let username, let password {
            all.insert(contentsOf: [arguments.first == "copy" ? "--src-creds" : "--creds", "\(username):\(password)"], at: 3)
        }
        return try runTool(all)
    }

    /// `skopeo inspect` (or `--config`) of `repository:tag` as JSON; nil when it is not there.
    func inspect(_ reference: String, config: Bool = false) throws -> [String: Any]? {
        let result = try skopeo(["inspect", "--tls-verify=false"] + (config ? ["--config"] : []) + ["docker://\(host)/\(reference)"])
        guard result.status == 0 else { return nil }
        return try JSONSerialization.jsonObject(with: Data(result.output.utf8)) as? [String: Any]
    }

    func stop() {
        if process.isRunning {
            process.terminate()
            process.waitUntilExit()
        }
        try? FileManager.default.removeItem(atPath: folder)
    }
}
