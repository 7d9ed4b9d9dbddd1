extension LaneContext {
    /// Makes `value` a secret from now on: redacted from everything the run prints, reports and
    /// records — in this program, and by the `shiplane` process that relays its output. For a
    /// value that becomes known while the lane runs (a token an API hands back, a key a command
    /// prints).
    public func registerSecret(_ value: String) {
        RuntimeSecrets.register([value])
    }

    /// Redacts every secret this run knows (the environment's, `.env`'s, and those registered
    /// while it runs) from text.
    var redactor: SecretRedactor { SecretRedactor(secrets: Array(environment.secretValues)) }
}
