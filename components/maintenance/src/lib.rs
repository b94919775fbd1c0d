//! The maintenance run on Spin's cron trigger (`[[trigger.cron]]`, world
//! `fermyon:spin-cron/spin-cron@2.0.0`): every few seconds, `maintenance_core`
//! ends idle interviews, erases those past their project's retention and sends
//! the webhook deliveries that are due. Where no
//! cron trigger runs, `POST /v1/maintenance/run` (the `operator` component) does
//! the same run for an external scheduler.

use maintenance_core as maintenance;
use platform::time;
use storage::Db;

wit_bindgen::generate!({
    world: "spin-cron",
    path: "../../wit/spin-cron.wit",
});

struct Maintenance;

impl Guest for Maintenance {
    fn handle_cron_event(_metadata: Metadata) -> Result<(), Error> {
        let db = Db::open().map_err(|e| Error::Other(format!("opening the database: {e:?}")))?;
        let report = maintenance::run(&db, time::now(), &mut *sentence_model::meanings::maker()).map_err(Error::Other)?;
        if report != maintenance::Report::default() {
            eprintln!("maintenance: {}", summary(&report));
        }
        Ok(())
    }
}

fn summary(report: &maintenance::Report) -> String {
    format!(
        "ended {} idle interview(s); erased {} past retention; assessed {} for the synthesis; gave meanings to {} answer(s); wrote {} synthesis(es) with the model; \
         deliveries: {} attempted, {} delivered, {} retrying, {} failed",
        report.ended_interviews,
        report.erased_interviews,
        report.assessed_interviews,
        report.embedded_answers,
        report.syntheses_written,
        report.deliveries.attempted,
        report.deliveries.delivered,
        report.deliveries.retrying,
        report.deliveries.failed
    )
}

export!(Maintenance);
