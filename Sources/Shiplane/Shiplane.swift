// What lane code names of swift-argument-parser, and only that: the property wrappers for a
// lane's options, the protocol an option's own type conforms to, the protocol of an
// `@OptionGroup`'s options (which `Lane` refines) and the error `validate()` throws. Each is
// re-exported alone (a scoped import), so a lane that writes `import Shiplane` declares
// `@Option var bump: VersionBump` without importing the parser, while the parser's commands,
// exit codes and other machinery stay out of the lane's scope; a lane file cannot import the
// parser itself (the lane compiler's `LaneImports`). Implicit members
// (`name: .shortAndLong`, `completion: .list([...])`, `parsing: .upToNextOption`) are found
// through the parameters' types. Only these declarations: `Scripts/api-count` counts none.
@_exported import struct ArgumentParser.Option
@_exported import struct ArgumentParser.Flag
@_exported import struct ArgumentParser.Argument
@_exported import struct ArgumentParser.OptionGroup
@_exported import struct ArgumentParser.ArgumentHelp
@_exported import struct ArgumentParser.ValidationError
@_exported import protocol ArgumentParser.ExpressibleByArgument
@_exported import protocol ArgumentParser.EnumerableFlag
@_exported import protocol ArgumentParser.ParsableArguments

/// Shiplane's own version, shown by `shiplane --version` and part of the lane cache key.
public enum ShiplaneVersion {
    /// The version string, in SemVer form.
    public static let current = "0.1.0"
}
