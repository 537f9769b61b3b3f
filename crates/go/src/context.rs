//! The build context: which GOOS/GOARCH/tags a file selection is made for.

use serde::{Deserialize, Serialize};

/// Build context (an input of the analysis).
///
/// Default: linux/amd64, cgo off, compiler `gc`, release tags `go1.1`..`go1.26`, the tool tags
/// `go list -f '{{context.ToolTags}}'` reports for the default Go 1.26 linux/amd64 toolchain
/// (the default `goexperiment.*` tags and `amd64.v1`), no user build tags.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct BuildContext {
    pub goos: String,
    pub goarch: String,
    pub cgo_enabled: bool,
    pub compiler: String,
    /// Release tags are `go1.1` ..= `go1.<release_minor>`.
    pub release_minor: u32,
    pub tool_tags: Vec<String>,
    pub build_tags: Vec<String>,
}

/// Tool tags of the default Go 1.26 linux/amd64 toolchain.
pub const DEFAULT_TOOL_TAGS: &[&str] = &[
    "goexperiment.regabiwrappers",
    "goexperiment.regabiargs",
    "goexperiment.dwarf5",
    "goexperiment.greenteagc",
    "goexperiment.randomizedheapbase64",
    "amd64.v1",
];

impl Default for BuildContext {
    fn default() -> Self {
        BuildContext {
            goos: "linux".into(),
            goarch: "amd64".into(),
            cgo_enabled: false,
            compiler: "gc".into(),
            release_minor: 26,
            tool_tags: DEFAULT_TOOL_TAGS.iter().map(|s| s.to_string()).collect(),
            build_tags: Vec::new(),
        }
    }
}

/// Operating systems `go/build` knows (file-name suffixes only constrain on these).
pub(crate) const KNOWN_OS: &[&str] = &[
    "aix",
    "android",
    "darwin",
    "dragonfly",
    "freebsd",
    "hurd",
    "illumos",
    "ios",
    "js",
    "linux",
    "nacl",
    "netbsd",
    "openbsd",
    "plan9",
    "solaris",
    "wasip1",
    "windows",
    "zos",
];

/// Operating systems that satisfy the `unix` build tag.
pub(crate) const UNIX_OS: &[&str] = &[
    "aix",
    "android",
    "darwin",
    "dragonfly",
    "freebsd",
    "hurd",
    "illumos",
    "ios",
    "linux",
    "netbsd",
    "openbsd",
    "solaris",
];

/// Architectures `go/build` knows.
pub(crate) const KNOWN_ARCH: &[&str] = &[
    "386",
    "amd64",
    "amd64p32",
    "arm",
    "armbe",
    "arm64",
    "arm64be",
    "loong64",
    "mips",
    "mipsle",
    "mips64",
    "mips64le",
    "mips64p32",
    "mips64p32le",
    "ppc",
    "ppc64",
    "ppc64le",
    "riscv",
    "riscv64",
    "s390",
    "s390x",
    "sparc",
    "sparc64",
    "wasm",
];

impl BuildContext {
    /// Deterministic text for fingerprinting: one `key=value` line per setting, fixed order,
    /// tag lists sorted and de-duplicated (their order never changes tag matching).
    pub fn canonical(&self) -> String {
        let sorted = |v: &[String]| {
            let mut v: Vec<&str> = v.iter().map(String::as_str).collect();
            v.sort_unstable();
            v.dedup();
            v.join(",")
        };
        format!(
            "goos={}\ngoarch={}\ncgo={}\ncompiler={}\nrelease_tags=go1.1..go1.{}\ntool_tags={}\nbuild_tags={}\n",
            self.goos,
            self.goarch,
            self.cgo_enabled,
            self.compiler,
            self.release_minor,
            sorted(&self.tool_tags),
            sorted(&self.build_tags)
        )
    }

    /// Whether build tag `name` is satisfied, exactly as `go/build`'s `matchTag`.
    pub fn match_tag(&self, name: &str) -> bool {
        if self.cgo_enabled && name == "cgo" {
            return true;
        }
        if name == self.goos || name == self.goarch || name == self.compiler {
            return true;
        }
        match (self.goos.as_str(), name) {
            ("android", "linux") | ("illumos", "solaris") | ("ios", "darwin") => return true,
            _ => {}
        }
        if name == "unix" && UNIX_OS.contains(&self.goos.as_str()) {
            return true;
        }
        let name = if name == "boringcrypto" { "goexperiment.boringcrypto" } else { name };
        if self.build_tags.iter().any(|t| t == name) || self.tool_tags.iter().any(|t| t == name) {
            return true;
        }
        // Release tags go1.1 ..= go1.<release_minor>.
        name.strip_prefix("go1.")
            .filter(|m| !m.is_empty() && m.bytes().all(|b| b.is_ascii_digit()) && !m.starts_with('0'))
            .and_then(|m| m.parse::<u32>().ok())
            .is_some_and(|m| m >= 1 && m <= self.release_minor)
    }
}
