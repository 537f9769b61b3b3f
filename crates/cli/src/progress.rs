//! A progress line on a terminal for long commands (`index`, `render`); silent otherwise.

use docforge_workspace::{Phase, SyncProgress};

/// A progress line on a terminal; silent otherwise.
pub(crate) struct Progress(Option<indicatif::ProgressBar>);

impl Progress {
    pub(crate) fn new(enabled: bool) -> Self {
        Progress(enabled.then(|| {
            let bar = indicatif::ProgressBar::new_spinner();
            bar.enable_steady_tick(std::time::Duration::from_millis(120));
            bar
        }))
    }

    /// Run `work`, showing the phase and, while analysing, the files done as a bar.
    pub(crate) fn track<R>(&self, progress: &SyncProgress, work: impl FnOnce() -> R) -> R {
        use std::sync::atomic::{AtomicBool, Ordering};
        let Some(bar) = &self.0 else { return work() };
        let finished = AtomicBool::new(false);
        std::thread::scope(|scope| {
            scope.spawn(|| {
                let spinner = indicatif::ProgressStyle::default_spinner();
                let counted =
                    indicatif::ProgressStyle::with_template("{spinner} {msg} [{bar:30}] {pos}/{len} ({eta})")
                        .expect("static template")
                        .progress_chars("=> ");
                let mut shown = None;
                while !finished.load(Ordering::Relaxed) {
                    let phase = progress.phase();
                    if shown != Some(phase) {
                        shown = Some(phase);
                        bar.set_style(if phase == Phase::Analysing {
                            counted.clone()
                        } else {
                            spinner.clone()
                        });
                        bar.set_message(match phase {
                            Phase::Idle | Phase::Scanning => "scanning",
                            Phase::Analysing => "analysing",
                            Phase::Publishing => "publishing",
                        });
                    }
                    if phase == Phase::Analysing {
                        bar.set_length(progress.analysis.total.load(Ordering::Relaxed) as u64);
                        bar.set_position(progress.analysis.done.load(Ordering::Relaxed) as u64);
                    }
                    std::thread::sleep(std::time::Duration::from_millis(100));
                }
            });
            let result = work();
            finished.store(true, Ordering::Relaxed);
            result
        })
    }

    /// Say what is being done now (a spinner line).
    pub(crate) fn message(&self, message: &str) {
        if let Some(bar) = &self.0 {
            bar.set_message(message.to_string());
        }
    }

    pub(crate) fn finish(&self) {
        if let Some(bar) = &self.0 {
            bar.finish_and_clear();
        }
    }
}
