import Foundation

/// A podspec as trunk takes it: the JSON form of a specification (`pod ipc spec`'s output, the
/// Specs repository's `.podspec.json`). A `.podspec.json` is read as it is; a Ruby `.podspec` is
/// evaluated by `ruby` with a small stand-in for CocoaPods' `Pod::Spec` DSL (attributes,
/// platform proxies such as `s.ios.deployment_target`, `dependency`, subspecs, test and app
/// specs), which writes the same JSON CocoaPods' `to_json` writes for those.
package struct Podspec: Sendable {
    /// The JSON document sent to trunk.
    package var json: Data
    package var name: String
    package var version: String

    /// Reads a podspec file.
    /// - Throws: `ValidationFailure` when it cannot be read or is not a specification.
    static func read(_ path: String, shown: String, environment: [String: String], processRunner: any ProcessRunning) async throws -> Podspec {
        let data: Data
        if path.hasSuffix(".podspec.json") {
            guard let bytes = FileManager.default.contents(atPath: path) else {
                throw ValidationFailure(problems: ["\(shown) does not exist"], suggestion: "pass the path of the pod's .podspec or .podspec.json; nothing was sent")
            }
            data = bytes
        } else if path.hasSuffix(".podspec") {
            guard FileManager.default.fileExists(atPath: path) else {
                throw ValidationFailure(problems: ["\(shown) does not exist"], suggestion: "pass the path of the pod's .podspec or .podspec.json; nothing was sent")
            }
            let invocation = ProcessInvocation(executable: "ruby", arguments: ["-e", rubyToJSON, path],
                                               workingDirectory: (path as NSString).deletingLastPathComponent, environment: environment, timeout: 60)
            let result = try await processRunner.run(invocation) { _, _ in }
            guard result.exitCode == 0, !result.standardOutput.isEmpty else {
                throw ValidationFailure(problems: ["ruby could not read \(shown): " + result.standardError.trimmingCharacters(in: .whitespacesAndNewlines).split(separator: "\n").prefix(3).joined(separator: " ")],
                                        suggestion: "fix the podspec (ruby -c \(shown) checks its syntax), or push a .podspec.json; nothing was sent")
            }
            data = Data(result.standardOutput.utf8)
        } else {
            throw ValidationFailure(problems: ["\(shown) is not a .podspec or .podspec.json file"], suggestion: "pass the pod's specification; nothing was sent")
        }
        guard let object = (try? JSONSerialization.jsonObject(with: data)) as? [String: Any] else {
            throw ValidationFailure(problems: ["\(shown) is not a JSON object"], suggestion: "fix the podspec; nothing was sent")
        }
        return Podspec(json: data, name: object["name"] as? String ?? "", version: object["version"] as? String ?? "")
    }

    /// What trunk's validation would refuse, and a version other than the release's: every
    /// problem at once.
    func problems(releaseVersion: String, shown: String) -> [String] {
        let object = ((try? JSONSerialization.jsonObject(with: json)) as? [String: Any]) ?? [:]
        var problems: [String] = []
        if name.isEmpty { problems.append("\(shown) has no name") }
        if version.isEmpty {
            problems.append("\(shown) has no version")
        } else if version != releaseVersion {
            problems.append("\(shown) says version \(version), but the release is \(releaseVersion): set s.version = '\(releaseVersion)' (commit it with the version bump)")
        }
        for key in ["summary", "homepage", "license", "authors", "source"] where object[key] == nil {
            problems.append("\(shown) has no \(key == "authors" ? "author(s)" : key), which trunk requires")
        }
        if let source = object["source"] as? [String: Any], let tag = source["tag"] as? String,
           tag != releaseVersion, tag != "v" + releaseVersion {
            problems.append("\(shown)'s source tag \(tag) is not the release's (\(releaseVersion) or v\(releaseVersion))")
        }
        return problems + Self.lintProblems(object, shown: shown)
    }

    /// A stand-in for CocoaPods' specification DSL, enough to turn a Ruby podspec into its JSON.
    static let rubyToJSON = #"""
    require 'json'
    module Pod
      class Spec
        PLATFORMS = %w[ios osx macos tvos watchos visionos].freeze
        RENAMED = { 'author' => 'authors', 'swift_version' => 'swift_versions', 'default_subspec' => 'default_subspecs',
                    'framework' => 'frameworks', 'library' => 'libraries', 'weak_framework' => 'weak_frameworks' }.freeze
        LISTS = %w[swift_versions default_subspecs frameworks libraries weak_frameworks].freeze
        class Proxy
          def initialize(spec, platform) @spec, @platform = spec, platform end
          def deployment_target=(value) (@spec.attributes['platforms'] ||= {})[@platform] = value.to_s end
          def deployment_target() (@spec.attributes['platforms'] || {})[@platform] end
          def dependency(name, *requirements)
            ((@spec.attributes[@platform] ||= {})['dependencies'] ||= {})[name] = requirements
          end
          def method_missing(name, *args)
            key = name.to_s
            return super unless key.end_with?('=')
            key = Spec.key(key.chomp('='))
            (@spec.attributes[@platform] ||= {})[key] = Spec.value(key, args.first)
          end
          def respond_to_missing?(*) true end
        end
        def self.key(key) RENAMED.fetch(key, key) end
        def self.value(key, value) LISTS.include?(key) && !value.is_a?(Array) ? [value] : value end
        attr_reader :attributes
        def initialize(parent = nil, name = nil)
          @parent = parent
          @attributes = {}
          @attributes['name'] = name if name
          yield self if block_given?
        end
        def platform=(value)
          platform, target = Array(value)
          @attributes['platforms'] = { platform.to_s => target&.to_s }
        end
        def dependency(name, *requirements) (@attributes['dependencies'] ||= {})[name] = requirements end
        def subspec(name, &block) (@attributes['subspecs'] ||= []) << Spec.new(self, name, &block) end
        def test_spec(name = 'Tests', &block) (@attributes['testspecs'] ||= []) << Spec.new(self, name, &block) end
        def app_spec(name = 'App', &block) (@attributes['appspecs'] ||= []) << Spec.new(self, name, &block) end
        def method_missing(name, *args)
          key = name.to_s
          return Proxy.new(self, key == 'macos' ? 'osx' : key) if args.empty? && PLATFORMS.include?(key)
          if key.end_with?('=')
            key = Spec.key(key.chomp('='))
            value = args.first
            value = value.to_s if key == 'version'
            return @attributes[key] = Spec.value(key, value)
          end
          return @attributes[Spec.key(key)] if args.empty?
          super
        end
        def respond_to_missing?(*) true end
        def to_hash
          @attributes.transform_values do |value|
            value.is_a?(Array) ? value.map { |item| item.is_a?(Spec) ? item.to_hash : item } : value
          end
        end
      end
      Specification = Spec
    end
    path = ARGV.fetch(0)
    spec = eval(File.read(path), TOPLEVEL_BINDING, path)
    raise "#{path} does not end with a Pod::Spec" unless spec.is_a?(Pod::Spec)
    puts JSON.pretty_generate(spec.to_hash)
    """#
}
