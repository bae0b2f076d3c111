//! `colophon vlm-check`: is every vision backend up, with the model there?

use crate::exit::ExitStatus;
use crate::settings::Settings;

/// One line per backend; any backend that fails its check fails the command.
pub fn vlm_check(settings: &Settings) -> ExitStatus {
    let checks = crate::vision::vlm_check_hosts(settings);
    for check in &checks {
        println!("{}", check.message);
    }
    if checks.iter().all(|c| c.ok()) {
        ExitStatus::Success
    } else {
        ExitStatus::SomeFailed
    }
}
