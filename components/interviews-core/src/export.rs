//! The two CSV exports of a project (the contract's columns, in its order): RFC 4180
//! (CRLF, quotes where needed), UTF-8, header row first, production interviews
//! oldest first. Streamed: each body chunk is one page of rows read when the
//! previous one has been written, so memory does not grow with the row count.

use platform::ids::InterviewId;
use platform::ids::ProjectId;
use platform::ids::TenantId;
use super::transcript::transcription;
use storage::Db;
use platform::error::{ApiError, ApiResult};
use platform::http::{ApiResponse, BodySource, Reply};
use projects_core::ProjectType;
use records::{store, Interview, Turn};
use text_enum::text_enum;
use std::borrow::Cow;

/// Interviews per page (one body chunk).
pub const PAGE_ROWS: i64 = 200;

text_enum! {
    pub enum ExportKind { Interviews = "interviews", Interviewees = "interviewees" }
}

/// The contract's columns of the interviews export; the interviewees export has all
/// but the last two.
pub const COLUMNS: [&str; 12] = [
    "interview_id",
    "identifier",
    "country_code",
    "interview_status",
    "opt_in_for_followup",
    "created_at",
    "ended_at",
    "project_type",
    "device_type",
    "external_metadata",
    "transcription",
    "interview_summary",
];

impl ExportKind {
    pub fn columns(self) -> &'static [&'static str] {
        match self {
            ExportKind::Interviews => &COLUMNS,
            ExportKind::Interviewees => &COLUMNS[..10],
        }
    }

    fn with_turns(self) -> bool {
        self == ExportKind::Interviews
    }
}

/// A cell a spreadsheet would run as a formula (`=`, `+`, `-`, `@`, tab, CR first)
/// gets a leading `'` (CSV injection).
pub fn guard(cell: &str) -> Cow<'_, str> {
    if cell.starts_with(['=', '+', '-', '@', '\t', '\r']) {
        Cow::Owned(format!("'{cell}"))
    } else {
        Cow::Borrowed(cell)
    }
}

/// The contract's `project_type` column.
pub fn project_type_label(project_type: ProjectType) -> &'static str {
    match project_type {
        ProjectType::Survey => "SURVEY",
        ProjectType::ContextualInterview => "INTERVIEW",
    }
}

fn cells(kind: ExportKind, row: Interview, transcription: String) -> Vec<Cow<'static, str>> {
    let mut cells = vec![
        Cow::Owned(row.interview_id.to_string()),
        Cow::Owned(row.identifier),
        Cow::Owned(row.country_code),
        Cow::Owned(row.interview_status.to_string()),
        Cow::Borrowed(if row.opt_in_for_followup { "true" } else { "false" }),
        Cow::Owned(row.created_at),
        Cow::Owned(row.ended_at.unwrap_or_default()),
        Cow::Borrowed(project_type_label(row.project_type)),
        Cow::Borrowed(row.device_type.as_str()),
        Cow::Owned(row.external_metadata.to_json()),
    ];
    if kind.with_turns() {
        cells.push(Cow::Owned(transcription));
        cells.push(Cow::Owned(row.summary.unwrap_or_default()));
    }
    cells
}

/// CSV lines for `records` (guarded cells, CRLF line ends).
pub fn csv_lines<'a>(records: impl IntoIterator<Item = Vec<Cow<'a, str>>>) -> ApiResult<Vec<u8>> {
    let mut writer = csv::WriterBuilder::new().terminator(csv::Terminator::CRLF).from_writer(Vec::new());
    for record in records {
        for cell in &record {
            writer.write_field(guard(cell).as_bytes()).map_err(ApiError::internal)?;
        }
        writer.write_record(None::<&[u8]>).map_err(ApiError::internal)?;
    }
    writer.into_inner().map_err(|e| ApiError::internal(anyhow::anyhow!("csv: {e}")))
}

/// A turn of a page, with its interview's id; the turn borrows from the page's result.
type PageTurn<'t> = (InterviewId, Turn<&'t str>);

/// A page's turns, which come ordered by interview id (SQLite's BINARY order
/// of the hyphenated lower-case text is the ids' own) and then in order, as one run per interview (no map, no copy of
/// a turn).
fn runs_by_interview<'t>(turns: &'t [PageTurn<'t>]) -> Vec<&'t [PageTurn<'t>]> {
    turns.chunk_by(|a, b| a.0 == b.0).collect()
}

/// An interview's turns among the runs (none when it has none), by a binary search.
fn turns_in<'t>(runs: &[&'t [PageTurn<'t>]], interview_id: InterviewId) -> &'t [PageTurn<'t>] {
    runs.binary_search_by(|run| run[0].0.cmp(&interview_id)).map_or(&[], |found| runs[found])
}

/// The header line and then the rows, a page per chunk.
pub struct ExportStream {
    db: Db,
    tenant_id: TenantId,
    project_id: ProjectId,
    kind: ExportKind,
    /// The last row sent: `(created_ms, interview_id)`.
    after: Option<(i64, InterviewId)>,
    header_sent: bool,
    done: bool,
}

impl ExportStream {
    fn page(&mut self) -> ApiResult<Option<Vec<u8>>> {
        let rows = store::export_page(&self.db, self.tenant_id, self.project_id, self.after, PAGE_ROWS)?;
        let Some(last) = rows.last() else {
            return Ok(None);
        };
        self.after = Some((last.created_ms, last.interview_id));
        self.done = (rows.len() as i64) < PAGE_ROWS;
        // No ids, no statement (the interviewees export has no transcripts).
        let ids: Vec<InterviewId> = match self.kind.with_turns() {
            true => rows.iter().map(|r| r.interview_id).collect(),
            false => Vec::new(),
        };
        let result = store::turns_of(&self.db, &ids)?;
        let turns = store::interview_turns(&result)?;
        let runs = runs_by_interview(&turns);
        let records = rows.into_iter().map(|row| {
            let text = transcription(turns_in(&runs, row.interview_id).iter().map(|(_, turn)| turn));
            cells(self.kind, row, text)
        });
        csv_lines(records).map(Some)
    }
}

impl BodySource for ExportStream {
    fn next_chunk(&mut self) -> ApiResult<Option<Vec<u8>>> {
        if !self.header_sent {
            self.header_sent = true;
            return csv_lines([self.kind.columns().iter().map(|c| Cow::Borrowed(*c)).collect()]).map(Some);
        }
        if self.done {
            return Ok(None);
        }
        self.page()
    }
}

/// `GET /v1/projects/{project_id}/<kind>-export`: 404 for an unknown (or another
/// tenant's) project, 204 with no body when it has no production interview,
/// otherwise the CSV, streamed.
pub fn export(db: Db, tenant_id: TenantId, project_id: ProjectId, kind: ExportKind) -> ApiResult<Reply> {
    if !projects_core::store::exists(&db, tenant_id, project_id)? {
        return Err(ApiError::not_found("Project"));
    }
    if store::export_page(&db, tenant_id, project_id, None, 1)?.is_empty() {
        return Ok(Reply::Full(ApiResponse::empty(204)));
    }
    let head = ApiResponse::empty(200)
        .with_header("content-type", "text/csv; charset=utf-8")
        .with_header(
            "content-disposition",
            format!("attachment; filename=\"{kind}-export-{project_id}.csv\""),
        )
        .with_header("cache-control", "no-store")
        .with_header("x-content-type-options", "nosniff");
    let stream = ExportStream {
        db,
        tenant_id,
        project_id,
        kind,
        after: None,
        header_sent: false,
        done: false,
    };
    Ok(Reply::Streamed(head, Box::new(stream)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn formula_cells_are_guarded() {
        for (cell, guarded) in [("=SUM(A1)", "'=SUM(A1)"), ("+1", "'+1"), ("-x", "'-x"), ("@a", "'@a"), ("\tx", "'\tx"), ("\rx", "'\rx")] {
            assert_eq!(guard(cell), guarded);
        }
        assert_eq!(guard("a=b"), "a=b");
        assert_eq!(guard(""), "");
    }

    #[test]
    fn lines_quote_what_needs_it_and_end_with_crlf() {
        let lines = csv_lines([vec![Cow::Borrowed("a,b"), Cow::Borrowed("say \"hi\""), Cow::Borrowed("two\nlines"), Cow::Borrowed("=1+1")]]).unwrap();
        assert_eq!(String::from_utf8(lines).unwrap(), "\"a,b\",\"say \"\"hi\"\"\",\"two\nlines\",'=1+1\r\n");
    }

    #[test]
    fn each_interview_gets_its_own_turns_and_one_without_gets_none() {
        use records::{Speaker, TurnKind, TurnSource};
        let turn = |interview_id, text| {
            let turn = Turn { seq: 0, speaker: Speaker::Interviewee, kind: TurnKind::Answer, question_index: None, source: TurnSource::Interviewee, text, created_at: "" };
            (interview_id, turn)
        };
        // As the statement returns them: by interview id, then in order.
        let id = |last: char| InterviewId::parse(&format!("00000000-0000-4000-8000-00000000000{last}")).unwrap();
        let turns = [turn(id('a'), "a1"), turn(id('a'), "a2"), turn(id('c'), "c1"), turn(id('d'), "d1"), turn(id('d'), "d2")];
        let runs = runs_by_interview(&turns);
        let texts = |last| turns_in(&runs, id(last)).iter().map(|(_, t)| t.text).collect::<Vec<_>>();
        // Asked in the export's order (by creation), not the ids'.
        assert_eq!(texts('d'), ["d1", "d2"]);
        assert_eq!(texts('b'), Vec::<&str>::new());
        assert_eq!(texts('a'), ["a1", "a2"]);
        assert_eq!(texts('c'), ["c1"]);
        assert_eq!(texts('e'), Vec::<&str>::new());
    }

    #[test]
    fn the_interviewees_export_drops_transcript_and_summary() {
        assert_eq!(ExportKind::Interviewees.columns().len(), 10);
        assert_eq!(ExportKind::Interviewees.columns().last(), Some(&"external_metadata"));
        assert_eq!(ExportKind::Interviews.columns()[10..], ["transcription", "interview_summary"]);
        assert_eq!((project_type_label(ProjectType::Survey), project_type_label(ProjectType::ContextualInterview)), ("SURVEY", "INTERVIEW"));
    }
}
