import Foundation

/// The environment variables a run sees, and the secrets among them.
///
/// Built once by the CLI from the process environment (and dotenv files); tests build their own.
/// Variables whose names look secret (`*TOKEN*`, `*SECRET*`, `*PASSWORD*`, `*KEY*`, `*WEBHOOK*`)
/// are registered as secrets automatically, so their values are redacted from everything printed.
public struct LaneEnvironment: Sendable {
    /// Every variable by name.
    public private(set) var variables: [String: String]
    /// The values to redact, from secret-looking names and those added as secret.
    public private(set) var secretValues: Set<String>

    /// Creates an environment from variables; `extraSecrets` are redacted as well.
    public init(variables: [String: String], extraSecrets: [String] = []) {
        self.variables = variables
        self.secretValues = []
        for (name, value) in variables where Self.looksSecret(name) { addSecret(value) }
        for value in extraSecrets { addSecret(value) }
    }

    /// The value of a variable, or nil when it is not set.
    public subscript(name: String) -> String? { variables[name] }

    /// Sets a variable; `secret` marks its value for redaction.
    public mutating func set(_ name: String, _ value: String, secret: Bool = false) {
        variables[name] = value
        if secret || Self.looksSecret(name) { addSecret(value) }
    }

    /// Marks a value as secret; values shorter than 4 characters are ignored (they would redact
    /// ordinary words and numbers).
    public mutating func addSecret(_ value: String) {
        for part in SecretRedactor.withLines([value]) where part.count >= 4 { secretValues.insert(part) }
    }

    static func looksSecret(_ name: String) -> Bool {
        let upper = Array(name.uppercased().utf8)
        // Compared as bytes, not with Foundation's `contains` (NSString on Linux): every process
        // checks every variable of its environment at start.
        func contains(_ part: String) -> Bool {
            let part = Array(part.utf8)
            guard part.count <= upper.count else { return false }
            return (0...(upper.count - part.count)).contains { upper[$0..<($0 + part.count)].elementsEqual(part) }
        }
        return ["TOKEN", "SECRET", "PASSWORD", "PASSWD", "_KEY", "APIKEY", "WEBHOOK", "CREDENTIAL", "SERVICE_ACCOUNT"]
            .contains(where: contains) || upper.suffix(3).elementsEqual("KEY".utf8)
    }
}
