@_exported import ArgumentParser

/// Shiplane's own version, shown by `shiplane --version` and part of the lane cache key.
public enum ShiplaneVersion {
    /// The version string, in SemVer form.
    public static let current = "0.1.0"
}
