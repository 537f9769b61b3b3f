//! Logic: the possible static control paths of each func/method. The golden rendering of
//! `fixtures/logic` (checked by hand, construct by construct) and path properties of small
//! sources.

use docforge_go::{
    extract_file, extract_file_logic, EdgeLabel, FunctionLogic, StepKind, MAX_LOGIC_STEPS, MAX_STEP_TEXT,
};
use docforge_syntax::{AstGate, AstPolicy, GateCounters};

fn logic(src: &str) -> Vec<FunctionLogic> {
    let gate = AstGate::new(AstPolicy::Allow);
    extract_file_logic(gate.go().unwrap(), src.as_bytes())
}

/// The logic of the only function of `body` (wrapped in `package p` and `func F()`).
fn f(body: &str) -> FunctionLogic {
    let mut all = logic(&format!("package p\n\nfunc F() {{\n{body}\n}}\n"));
    assert_eq!(all.len(), 1);
    all.pop().unwrap()
}

/// The index of the only step of `kind` whose text is `text`.
fn step(f: &FunctionLogic, kind: StepKind, text: &str) -> u32 {
    let found: Vec<usize> =
        (0..f.steps.len()).filter(|&i| f.steps[i].kind == kind && f.steps[i].text == text).collect();
    assert_eq!(found.len(), 1, "{kind:?} `{text}` in\n{}", f.render());
    found[0] as u32
}

fn exit(f: &FunctionLogic) -> u32 {
    f.steps.len() as u32 - 1
}

fn out(f: &FunctionLogic, from: u32) -> Vec<(u32, EdgeLabel)> {
    f.edges.iter().filter(|e| e.from == from).map(|e| (e.to, e.label)).collect()
}

fn into(f: &FunctionLogic, to: u32) -> Vec<(u32, EdgeLabel)> {
    f.edges.iter().filter(|e| e.to == to).map(|e| (e.from, e.label)).collect()
}

/// Whether a path leads from `from` to `to` without passing through `avoid`.
fn reaches(f: &FunctionLogic, from: u32, to: u32, avoid: &[u32]) -> bool {
    let mut seen = vec![false; f.steps.len()];
    let mut stack = vec![from];
    while let Some(s) = stack.pop() {
        if s == to {
            return true;
        }
        if std::mem::replace(&mut seen[s as usize], true) || avoid.contains(&s) {
            continue;
        }
        stack.extend(out(f, s).into_iter().map(|(t, _)| t));
    }
    false
}

#[test]
fn fixture_golden() {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../../fixtures/logic/flow.go");
    let src = std::fs::read_to_string(path).unwrap();
    let rendered: Vec<String> = logic(&src).iter().map(FunctionLogic::render).collect();
    expect_test::expect_file!["logic/flow.txt"].assert_eq(&rendered.join("\n"));
}

#[test]
fn functions_carry_the_decl_index_of_extract_file() {
    let src = "package p\nvar a, b = 1, 2\ntype T struct{}\nfunc F() {}\nconst c = 3\nfunc (t *T) M() {}\n\
               func init() {}\nfunc init() {}\nfunc asm(x int) int\n";
    let gate = AstGate::new(AstPolicy::Allow);
    let facts = extract_file(gate.go().unwrap(), src.as_bytes());
    let all = logic(src);
    let names: Vec<(u32, &str)> = all.iter().map(|f| (f.decl, f.name.as_str())).collect();
    assert_eq!(names, [(3, "F"), (5, "M"), (6, "init"), (7, "init"), (8, "asm")]);
    for f in &all {
        let decl = &facts.decls[f.decl as usize];
        assert_eq!((&decl.name, &decl.receiver, decl.pos), (&f.name, &f.receiver, f.pos));
    }
    // Without a body: an entry and an exit that no path connects.
    assert_eq!(all[4].steps.len(), 2);
    assert!(all[4].edges.is_empty());
}

#[test]
fn return_and_panic_go_to_the_exit_and_nothing_follows() {
    for (jump, kind, text) in [("return", StepKind::Return, ""), ("panic(\"x\")", StepKind::Panic, "\"x\"")] {
        let f = f(&format!("\tbefore()\n\t{jump}\n\tafter()"));
        let (j, after) = (step(&f, kind, text), step(&f, StepKind::Call, "after"));
        assert_eq!(out(&f, j), [(exit(&f), EdgeLabel::Exit)], "{jump}");
        assert!(into(&f, after).is_empty(), "{jump}: unreachable\n{}", f.render());
    }
}

#[test]
fn labelled_break_leaves_the_outer_loop_and_labelled_continue_goes_to_its_head() {
    let f = f(r#"
        L:
            for i := range xs {
                for {
                    if a() {
                        break L
                    }
                    if b() {
                        continue L
                    }
                    break
                }
                inner()
            }
            after()
    "#);
    let outer = step(&f, StepKind::Range, "i := range xs");
    let inner_head = step(&f, StepKind::Loop, "");
    assert_eq!(
        out(&f, step(&f, StepKind::Break, "L")),
        [(step(&f, StepKind::Call, "after"), EdgeLabel::Break)]
    );
    assert_eq!(out(&f, step(&f, StepKind::Continue, "L")), [(outer, EdgeLabel::Continue)]);
    // An unlabelled break leaves the inner loop only.
    assert_eq!(
        out(&f, step(&f, StepKind::Break, "")),
        [(step(&f, StepKind::Call, "inner"), EdgeLabel::Break)]
    );
    // The label step precedes the loop it names.
    assert_eq!(out(&f, step(&f, StepKind::Label, "L")), [(outer, EdgeLabel::Next)]);
    assert!(into(&f, inner_head).iter().all(|&(from, _)| from == outer));
}

#[test]
fn an_infinite_loop_is_left_only_by_break() {
    let forever = f(r#"
            for {
                work()
            }
            after()
    "#);
    assert!(into(&forever, step(&forever, StepKind::Call, "after")).is_empty());
    assert!(!reaches(&forever, 0, exit(&forever), &[]));

    let f = f(r#"
            for {
                if done() {
                    break
                }
                work()
            }
            after()
    "#);
    let (brk, after) = (step(&f, StepKind::Break, ""), step(&f, StepKind::Call, "after"));
    assert_eq!(into(&f, after), [(brk, EdgeLabel::Break)]);
    assert!(!reaches(&f, 0, exit(&f), &[brk]));
}

#[test]
fn continue_runs_the_post_statement_then_the_condition() {
    let f = f(r#"
            for i := 0; i < n; i = next(i) {
                if skip() {
                    continue
                }
                work()
            }
    "#);
    let post = step(&f, StepKind::Call, "next");
    assert_eq!(out(&f, step(&f, StepKind::Continue, "")), [(post, EdgeLabel::Continue)]);
    let (cont, work) = (step(&f, StepKind::Continue, ""), step(&f, StepKind::Call, "work"));
    assert_eq!(into(&f, post), [(cont, EdgeLabel::Continue), (work, EdgeLabel::Next)]);
    let head = step(&f, StepKind::Loop, "i := 0; i < n; i = next(i)");
    assert_eq!(out(&f, post), [(head, EdgeLabel::Loop)]);
    let cond = step(&f, StepKind::Condition, "i < n");
    assert_eq!(out(&f, cond), [(cond + 1, EdgeLabel::True), (exit(&f), EdgeLabel::False)]);
}

#[test]
fn break_leaves_the_innermost_switch_or_select_and_continue_skips_them() {
    let f = f(r#"
            for {
                select {
                case <-ch:
                    break
                }
                switch x {
                case 1:
                    break
                case 2:
                    continue
                }
                after()
            }
    "#);
    let breaks: Vec<u32> =
        (0..f.steps.len() as u32).filter(|&i| f.steps[i as usize].kind == StepKind::Break).collect();
    let switch = step(&f, StepKind::Switch, "x");
    assert_eq!(out(&f, breaks[0]), [(switch, EdgeLabel::Break)]);
    assert_eq!(out(&f, breaks[1]), [(step(&f, StepKind::Call, "after"), EdgeLabel::Break)]);
    assert_eq!(
        out(&f, step(&f, StepKind::Continue, "")),
        [(step(&f, StepKind::Loop, ""), EdgeLabel::Continue)]
    );
}

#[test]
fn a_switch_without_default_can_skip_every_case() {
    let without = f(r#"
            switch x {
            case 1:
                one()
            }
            after()
    "#);
    let after = step(&without, StepKind::Call, "after");
    assert!(out(&without, step(&without, StepKind::Switch, "x")).contains(&(after, EdgeLabel::Default)));

    let with = f(r#"
            switch x {
            case 1:
                one()
            default:
            }
            after()
    "#);
    let switch = step(&with, StepKind::Switch, "x");
    let default = step(&with, StepKind::Default, "");
    assert_eq!(out(&with, switch), [(switch + 1, EdgeLabel::Case), (default, EdgeLabel::Default)]);
}

#[test]
fn a_select_without_default_waits_and_an_empty_select_never_continues() {
    let f1 = f(r#"
            select {
            case v := <-in:
                use(v)
            case out <- make():
            }
            after()
    "#);
    let select = step(&f1, StepKind::Select, "");
    let cases = [step(&f1, StepKind::Case, "v := <-in"), step(&f1, StepKind::Case, "out <- make()")];
    assert_eq!(out(&f1, select), [(cases[0], EdgeLabel::Case), (cases[1], EdgeLabel::Case)]);
    // The sent value is evaluated before the select chooses.
    assert_eq!(out(&f1, step(&f1, StepKind::Call, "make")), [(select, EdgeLabel::Next)]);

    let empty = f(r#"
            select {}
            after()
    "#);
    assert!(out(&empty, step(&empty, StepKind::Select, "")).is_empty());
    assert!(!reaches(&empty, 0, exit(&empty), &[]));
}

#[test]
fn goto_jumps_to_its_label_forward_or_backward() {
    let f = f(r#"
        again:
            if retry() {
                goto again
            }
            goto done
            skipped()
        done:
            finish()
    "#);
    let (again, done) = (step(&f, StepKind::Label, "again"), step(&f, StepKind::Label, "done"));
    assert_eq!(out(&f, step(&f, StepKind::Goto, "again")), [(again, EdgeLabel::Goto)]);
    assert_eq!(out(&f, step(&f, StepKind::Goto, "done")), [(done, EdgeLabel::Goto)]);
    assert!(into(&f, step(&f, StepKind::Call, "skipped")).is_empty());
    assert_eq!(out(&f, done), [(step(&f, StepKind::Call, "finish"), EdgeLabel::Next)]);
}

#[test]
fn fallthrough_enters_the_next_clause_without_evaluating_its_expressions() {
    let f = f(r#"
            switch {
            case a():
                fallthrough
            case b():
                body()
            }
    "#);
    let second = step(&f, StepKind::Case, "b()");
    assert_eq!(out(&f, step(&f, StepKind::Fallthrough, "")), [(second, EdgeLabel::Fallthrough)]);
    assert_eq!(into(&f, step(&f, StepKind::Call, "b")), [(step(&f, StepKind::Switch, ""), EdgeLabel::Case)]);
}

#[test]
fn calls_come_in_evaluation_order_and_closures_are_not_inlined() {
    let f = f(r#"
            x := outer(inner1(), inner2())(later())
            defer cleanup(now())
            go func(v int) {
                hidden()
            }(arg())
            func() { alsoHidden() }()
    "#);
    let kinds: Vec<String> = f.steps.iter().map(|s| format!("{} {}", s.kind.as_str(), s.text)).collect();
    assert_eq!(
        kinds,
        [
            "entry ",
            "call inner1",
            "call inner2",
            "call outer",
            "call later",
            "call outer(inner1(), inner2())",
            "call now",
            "defer cleanup",
            "closure func(v int)",
            "call arg",
            "go func(v int)",
            "closure func()",
            "call func()",
            "exit ",
        ]
    );
}

#[test]
fn conversions_make_no_call_step_but_generic_calls_do() {
    let f = f(r#"
            _ = []byte(s)
            _ = string(b)
            _ = map[string]int(m)
            _ = Map[int](xs)
            _ = T(x)
    "#);
    let calls: Vec<&str> =
        f.steps.iter().filter(|s| s.kind == StepKind::Call).map(|s| s.text.as_str()).collect();
    // `T(x)` may be a call or a conversion: syntax cannot tell.
    assert_eq!(calls, ["Map[int]", "T"]);
}

#[test]
fn an_if_without_else_joins_its_false_edge_with_the_end_of_then() {
    let f = f(r#"
            if v, ok := lookup(); ok {
                use(v)
            }
            after()
    "#);
    let cond = step(&f, StepKind::Condition, "ok");
    let after = step(&f, StepKind::Call, "after");
    assert_eq!(out(&f, step(&f, StepKind::Call, "lookup")), [(cond, EdgeLabel::Next)]);
    assert_eq!(out(&f, cond), [(cond + 1, EdgeLabel::True), (after, EdgeLabel::False)]);
    assert_eq!(f.steps[cond as usize + 1].kind, StepKind::Then);
    assert_eq!(
        into(&f, after),
        [(cond, EdgeLabel::False), (step(&f, StepKind::Call, "use"), EdgeLabel::Next)]
    );
}

#[test]
fn step_text_is_bounded_and_collapsed() {
    let long = (0..60).map(|i| format!("v{i}")).collect::<Vec<_>>().join(" &&\n\t\t");
    let f = f(&format!("\tif {long} {{\n\t}}"));
    let cond = f.steps.iter().find(|s| s.kind == StepKind::Condition).unwrap();
    assert!(cond.text.len() <= MAX_STEP_TEXT && cond.text.ends_with('…'), "{}", cond.text);
    assert!(cond.text.starts_with("v0 && v1 && v2"));
}

#[test]
fn the_step_bound_truncates_without_losing_the_exit() {
    let body: String = (0..MAX_LOGIC_STEPS + 10).map(|i| format!("\tc{i}()\n")).collect();
    let f = f(&body);
    assert!(f.truncated && !f.partial);
    assert_eq!(f.steps.len(), MAX_LOGIC_STEPS);
    assert_eq!(f.steps.last().unwrap().kind, StepKind::Exit);
    assert!(f.edges.iter().all(|e| (e.to as usize) < f.steps.len()));
}

#[test]
fn deep_nesting_truncates_instead_of_overflowing_the_stack() {
    for (open, close) in [("{", "}"), ("if x {", "}"), ("for {", "}"), ("switch { default:", "}")] {
        let body = format!("{}\n{}", open.repeat(5_000), close.repeat(5_000));
        let f = f(&body);
        assert!(f.truncated, "{open}");
    }
}

#[test]
fn syntax_errors_mark_the_function_partial_and_never_panic() {
    let f = f(r#"
            if x {
                a(
            }
            b()
    "#);
    assert!(f.partial);
    // Any prefix of the fixture: never a panic, always well-formed graphs.
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../../fixtures/logic/flow.go");
    let src = std::fs::read(path).unwrap();
    let gate = AstGate::new(AstPolicy::Allow);
    for end in (0..src.len()).step_by(13) {
        for f in extract_file_logic(gate.go().unwrap(), &src[..end]) {
            assert_eq!(f.steps[0].kind, StepKind::Entry);
            assert_eq!(f.steps.last().unwrap().kind, StepKind::Exit);
            assert!(f
                .edges
                .iter()
                .all(|e| (e.to as usize) < f.steps.len() && (e.from as usize) < f.steps.len()));
        }
    }
}

#[test]
fn under_the_no_ast_policy_nothing_is_parsed_or_queried() {
    let gate = AstGate::new(AstPolicy::Forbid);
    let logic = gate.go().map(|go| extract_file_logic(go, b"package p\nfunc F() { G() }\n"));
    assert!(logic.is_err());
    assert_eq!(gate.counters(), GateCounters { parses: 0, query_executions: 0, refusals: 1 });
}
