//! Build-constraint selection: file names, //go:build, // +build, cgo, release tags.

use docforge_go::{eval_go_build, select_file, BuildContext, FileSelection};

fn included(ctx: &BuildContext, name: &str, src: &str) -> bool {
    select_file(ctx, name, src.as_bytes()) == FileSelection::Included
}

#[test]
fn file_name_suffixes() {
    let ctx = BuildContext::default();
    let src = "package p\n";
    let cases = [
        ("a.go", true),
        ("a_linux.go", true),
        ("a_windows.go", false),
        ("a_amd64.go", true),
        ("a_arm64.go", false),
        ("a_linux_amd64.go", true),
        ("a_linux_arm64.go", false),
        ("a_windows_amd64.go", false),
        ("a_linux_test.go", true),
        ("a_windows_test.go", false),
        ("a_linux_amd64_test.go", true),
        ("a_darwin_amd64_test.go", false),
        ("linux.go", true),         // no underscore: no constraint
        ("a_unix.go", true),        // unix is not a known GOOS for suffixes
        ("a_test.go", true),        // just a test
        ("x_windows_foo.go", true), // suffix must be last
        ("a_amd64.s.go", true),     // name is cut at the first dot: "a_amd64"
        ("a_386.go", false),
        ("_hidden.go", false),
        (".hidden.go", false),
        ("a.txt", false),
    ];
    for (name, want) in cases {
        assert_eq!(included(&ctx, name, src), want, "{name}");
    }
    let mut arm = BuildContext { goos: "android".into(), goarch: "arm64".into(), ..Default::default() };
    assert!(included(&arm, "a_linux.go", src), "android satisfies linux");
    assert!(included(&arm, "a_arm64.go", src));
    arm.goos = "windows".into();
    assert!(!included(&arm, "a_linux.go", src));
}

#[test]
fn go_build_grammar() {
    let ctx = BuildContext::default();
    let cases: &[(&str, Result<bool, ()>)] = &[
        ("//go:build linux", Ok(true)),
        ("//go:build !linux", Ok(false)),
        ("//go:build linux && amd64", Ok(true)),
        ("//go:build linux && !amd64", Ok(false)),
        ("//go:build windows || amd64", Ok(true)),
        ("//go:build !(windows || darwin)", Ok(true)),
        ("//go:build (linux || darwin) && !cgo", Ok(true)),
        ("//go:build cgo", Ok(false)),
        ("//go:build unix", Ok(true)),
        ("//go:build gc && !purego", Ok(true)),
        ("//go:build gccgo", Ok(false)),
        ("//go:build ignore", Ok(false)),
        ("//go:build go1.18", Ok(true)),
        ("//go:build go1.26", Ok(true)),
        ("//go:build go1.27", Ok(false)),
        ("//go:build !go1.21", Ok(false)),
        ("//go:build goexperiment.greenteagc", Ok(true)),
        ("//go:build goexperiment.boringcrypto", Ok(false)),
        ("//go:build amd64.v1 && !amd64.v3", Ok(true)),
        ("//go:build !!linux", Ok(true)),
        ("//go:build a || b && c", Ok(false)),
        ("//go:build linux || b && c", Ok(true)),
        ("//go:build", Err(())),
        ("//go:build linux &&", Err(())),
        ("//go:build (linux", Err(())),
        ("//go:build linux darwin", Err(())),
        ("//go:build linux & amd64", Err(())),
        ("//go:build linux,amd64", Err(())),
    ];
    for (line, want) in cases {
        assert_eq!(eval_go_build(&ctx, line).map_err(|_| ()), *want, "{line}");
    }
}

#[test]
fn header_rules() {
    let ctx = BuildContext::default();
    let cases = [
        ("//go:build windows\n\npackage p\n", false),
        ("// Copyright\n\n//go:build linux\n\npackage p\n", true),
        ("/* block */\n//go:build windows\npackage p\n", false),
        // After the package clause, constraints are ordinary comments.
        ("package p\n//go:build windows\n", true),
        // Legacy +build: OR of fields, AND within a field; lines must precede a blank line.
        ("// +build windows darwin\n\npackage p\n", false),
        ("// +build windows linux\n\npackage p\n", true),
        ("// +build linux,!amd64\n\npackage p\n", false),
        ("// +build linux\n// +build !cgo\n\npackage p\n", true),
        ("// +build linux\n// +build cgo\n\npackage p\n", false),
        ("// +build windows\npackage p\n", true), // not followed by a blank line: ignored
        // //go:build wins over +build.
        ("//go:build linux\n// +build windows\n\npackage p\n", true),
        ("//go:build ignore\n\npackage main\n", false),
        // Two //go:build lines are an error: excluded.
        ("//go:build linux\n//go:build amd64\n\npackage p\n", false),
        ("//go:build linux &&\n\npackage p\n", false),
        ("package documentation\n", false),
    ];
    for (src, want) in cases {
        assert_eq!(included(&ctx, "a.go", src), want, "{src:?}");
    }
    match select_file(&ctx, "a.go", b"//go:build windows\n\npackage p\n") {
        FileSelection::Excluded { reason } => assert!(reason.contains("//go:build windows"), "{reason}"),
        FileSelection::Included => panic!("windows file included"),
    }
}

#[test]
fn cgo_files() {
    let off = BuildContext::default();
    let on = BuildContext { cgo_enabled: true, ..Default::default() };
    let cases = [
        ("package p\nimport \"C\"\n", true),
        ("package p\n\n// #include <stdio.h>\nimport \"C\"\nimport \"fmt\"\n", true),
        ("package p\nimport (\n\t\"fmt\"\n\t\"C\"\n)\n", true),
        ("package p; import \"fmt\"; import `C`\n", true),
        ("package p\nimport c \"C\"\n", true),
        ("package p\nimport \"fmt\"\nfunc f() { _ = \"C\" }\n", false),
        ("package p\n/* import \"C\" */\nimport \"fmt\"\n", false),
        ("package p\nimport \"Cx\"\n", false),
    ];
    for (src, cgo) in cases {
        assert_eq!(included(&off, "a.go", src), !cgo, "{src:?}");
        assert!(included(&on, "a.go", src), "{src:?}");
    }
    assert!(included(&on, "a.go", "//go:build cgo\n\npackage p\n"));
    assert!(!included(&off, "a.go", "//go:build cgo\n\npackage p\n"));
}

#[test]
fn user_tags_and_canonical() {
    let ctx = BuildContext { build_tags: vec!["integration".into()], ..Default::default() };
    assert!(included(&ctx, "a.go", "//go:build integration\n\npackage p\n"));
    assert!(!included(&BuildContext::default(), "a.go", "//go:build integration\n\npackage p\n"));
    let a = BuildContext { build_tags: vec!["b".into(), "a".into()], ..Default::default() };
    let b = BuildContext { build_tags: vec!["a".into(), "b".into(), "a".into()], ..Default::default() };
    assert_eq!(a.canonical(), b.canonical());
    expect_test::expect![[r#"
        goos=linux
        goarch=amd64
        cgo=false
        compiler=gc
        release_tags=go1.1..go1.26
        tool_tags=amd64.v1,goexperiment.dwarf5,goexperiment.greenteagc,goexperiment.randomizedheapbase64,goexperiment.regabiargs,goexperiment.regabiwrappers
        build_tags=
    "#]]
    .assert_eq(&BuildContext::default().canonical());
}

#[test]
fn garbage_input_never_panics() {
    let ctx = BuildContext::default();
    for src in [
        &b"\xff\xfe//go:build linux\n"[..],
        b"/*",
        b"package",
        b"package p\nimport (\"",
        b"package p\nimport `",
        b"\"",
        b"",
    ] {
        let _ = select_file(&ctx, "a.go", src);
    }
    assert!(included(&ctx, "a.go", "package p\nimport \"é\"\n"));
}
