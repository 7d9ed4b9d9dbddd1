// Public: `Secret` is an option type (`ExpressibleByArgument`) lanes declare.
public import ArgumentParser

/// A lane option whose value is a secret (`@Option var apiKey: Secret`): from the moment the
/// command line is parsed the value is redacted from everything the run prints, reports and
/// records, by the lane program and by `shiplane` alike, and it shows as `***` when interpolated.
/// Lane code reads the value itself through `value`.
public struct Secret: ExpressibleByArgument, Sendable, CustomStringConvertible, Equatable {
    /// The secret value.
    public let value: String

    /// Wraps a value known to be secret and registers it for redaction.
    public init(_ value: String) {
        self.value = value
        RuntimeSecrets.register([value])
    }

    /// Parses the option's value and registers it for redaction.
    public init?(argument: String) {
        self.init(argument)
    }

    /// Always `***`: a secret interpolated into a message does not show.
    public var description: String { SecretRedactor.mask }

    /// A default value is never shown in help.
    public var defaultValueDescription: String { SecretRedactor.mask }
}
