//! Operating a replica behind a balancer (docs/deployment.md): a readiness endpoint,
//! a SIGTERM drain with a bound, and metrics in the Prometheus text format.
//!
//! - `GET /health`: `200 ok` while the replica takes work, `503 draining` once SIGTERM
//!   (or SIGINT) arrived. The balancer's health check reads it, so a draining replica
//!   leaves the rotation before it stops accepting connections.
//! - Drain: on SIGTERM `/health` turns 503 at once; the replica keeps serving for the
//!   grace period (`--drain-grace`, long enough for the balancer's check to see it), then
//!   stops accepting, lets the requests in flight finish and exits, waiting at most
//!   `--drain-timeout` for them (an open handshake-era SSE stream is cut at that bound).
//! - `GET /metrics`: counters and a histogram fed by a `tracing` layer consuming the
//!   `elicit.round` spans elicit-rmcp emits (one per round: fields `tool`, `era`, and
//!   recorded before it closes `outcome`, `questions`, `rejection`, `key_id`), plus the
//!   HTTP requests this replica served. Encoded by `prometheus-client`.

use std::borrow::Cow;
use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, OnceLock, RwLock};
use std::time::{Duration, Instant};

use prometheus_client::encoding::EncodeLabelSet;
use prometheus_client::metrics::counter::Counter;
use prometheus_client::metrics::family::Family;
use prometheus_client::metrics::gauge::Gauge;
use prometheus_client::metrics::histogram::{exponential_buckets, Histogram};
use prometheus_client::registry::Registry;
use tracing::field::{Field, Visit};
use tracing::span::{Attributes, Id, Record};
use tracing::Subscriber;
use tracing_subscriber::layer::Context;
use tracing_subscriber::registry::LookupSpan;
use tracing_subscriber::Layer;

/// The readiness endpoint's path.
pub const HEALTH_PATH: &str = "/health";
/// The metrics endpoint's path.
pub const METRICS_PATH: &str = "/metrics";
/// The span name of one round, as elicit-rmcp emits it.
pub const ROUND_SPAN: &str = "elicit.round";
/// The content type of `/metrics` (the text format prometheus-client writes).
pub const METRICS_CONTENT_TYPE: &str = "application/openmetrics-text; version=1.0.0; charset=utf-8";

/// Label values longer than this are cut, so a span field can never grow a series
/// without bound.
const MAX_LABEL: usize = 64;

/// The `outcome`s elicit-rmcp records (its README, "Telemetry"): each (tool, era) keeps a
/// counter for each, found by index. Any other value is counted through its family.
const OUTCOMES: [&str; 7] = [
    "asked",
    "completed",
    "fallback",
    "declined",
    "cancelled",
    "rejected",
    "error",
];

/// Every other label value elicit-rmcp records from a fixed set (`era`, `rejection`), and
/// the stand-in for a field never recorded: kept as static text, not copied per round.
const KNOWN: [&str; 13] = [
    "2026-07-28",
    "handshake",
    "unknown",
    "expired",
    "audience",
    "tampered",
    "malformed",
    "unknown_key",
    "future",
    "request_binding",
    "principal",
    "principal_drift",
    "too_large",
];

/// A label value: static when it is one of [`OUTCOMES`] or [`KNOWN`], else a copy cut at
/// [`MAX_LABEL`] characters.
type Label = Cow<'static, str>;

fn label(v: &str) -> Label {
    match OUTCOMES.iter().chain(&KNOWN).find(|k| **k == v) {
        Some(k) => Cow::Borrowed(k),
        None => Cow::Owned(cut(v).to_owned()),
    }
}

/// `v` cut at [`MAX_LABEL`] characters.
fn cut(v: &str) -> &str {
    match v.char_indices().nth(MAX_LABEL) {
        Some((end, _)) => v.get(..end).unwrap_or(v),
        None => v,
    }
}

/// How long a drain lasts: serve on while the balancer notices, then finish what is in
/// flight within a bound.
#[derive(Clone, Copy, Debug)]
pub struct Drain {
    /// Time between SIGTERM (`/health` turns 503) and closing the listener.
    pub grace: Duration,
    /// The most the replica waits for requests in flight after closing the listener.
    pub timeout: Duration,
}

impl Default for Drain {
    fn default() -> Self {
        Drain {
            grace: Duration::from_secs(1),
            timeout: Duration::from_secs(10),
        }
    }
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct RoundLabels {
    tool: Label,
    era: Label,
    outcome: Label,
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct ToolEra {
    tool: Label,
    era: Label,
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct EraLabel {
    era: Label,
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct ReasonLabel {
    reason: Label,
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct KeyLabel {
    key_id: String,
}

fn round_histogram() -> Histogram {
    // 50 µs .. ~1.6 s in 16 doubling buckets.
    Histogram::new(exponential_buckets(0.000_05, 2.0, 16))
}

/// The metrics of one replica.
struct Metrics {
    rounds: Family<RoundLabels, Counter>,
    questions: Family<ToolEra, Counter>,
    rejections: Family<ReasonLabel, Counter>,
    latency: Family<EraLabel, Histogram, fn() -> Histogram>,
    sealing_key: Family<KeyLabel, Gauge>,
    last_key: Mutex<Option<String>>,
    /// The series of each tool (by name) and era: a round reaches its counters and
    /// histogram with one lookup of its tool's name (a family hashes every label of the
    /// set at each lookup).
    series: RwLock<HashMap<Box<str>, Vec<Series>>>,
    http_requests: Counter,
    http_in_flight: Gauge,
}

/// Handles on the families' metrics of one (tool, era), each made in its family the first
/// time it counts (so `/metrics` shows the same series as lookups at each round would).
struct Series {
    tool: Label,
    era: Label,
    /// `elicit_rounds_total` by outcome, as in [`OUTCOMES`].
    outcomes: [OnceLock<Counter>; OUTCOMES.len()],
    questions: OnceLock<Counter>,
    latency: Histogram,
}

/// A replica's health state and metrics; shared by the HTTP server and the tracing layer.
pub struct Ops {
    draining: AtomicBool,
    registry: Registry,
    metrics: Arc<Metrics>,
}

impl Ops {
    /// A replica that is ready, with every metric at zero.
    pub fn new() -> Arc<Ops> {
        let metrics = Arc::new(Metrics {
            rounds: Family::default(),
            questions: Family::default(),
            rejections: Family::default(),
            latency: Family::new_with_constructor(round_histogram),
            sealing_key: Family::default(),
            last_key: Mutex::new(None),
            series: RwLock::default(),
            http_requests: Counter::default(),
            http_in_flight: Gauge::default(),
        });
        let mut registry = Registry::with_prefix("elicit");
        registry.register(
            "rounds",
            "Rounds served, by tool, era (2026-07-28 or handshake) and outcome \
             (asked, completed, declined, cancelled, rejected, error)",
            metrics.rounds.clone(),
        );
        registry.register(
            "questions",
            "Questions asked of the client, by tool and era",
            metrics.questions.clone(),
        );
        registry.register(
            "state_rejections",
            "Rounds whose requestState was refused, by reason",
            metrics.rejections.clone(),
        );
        registry.register(
            "round_duration_seconds",
            "Time from a round's start to its answer, by era",
            metrics.latency.clone(),
        );
        registry.register(
            "sealing_key",
            "1 for the id of the key this replica seals with (the key ring's first), as last \
             seen on a round; 0 for ids it sealed with before",
            metrics.sealing_key.clone(),
        );
        registry.register(
            "http_requests",
            "HTTP requests to the MCP endpoint this replica answered",
            metrics.http_requests.clone(),
        );
        registry.register(
            "http_requests_in_flight",
            "HTTP requests to the MCP endpoint being served now",
            metrics.http_in_flight.clone(),
        );
        Arc::new(Ops {
            draining: AtomicBool::new(false),
            registry,
            metrics,
        })
    }

    /// The tracing layer that turns `elicit.round` spans into metrics.
    pub fn layer(&self) -> RoundLayer {
        RoundLayer {
            metrics: self.metrics.clone(),
        }
    }

    /// The process's tracing subscriber: the metrics layer (which sees the `elicit.round`
    /// spans only), and warnings and errors on stderr (elicit-rmcp's refused states among
    /// them). Nothing else is enabled, so the other spans and events cost nothing.
    pub fn subscriber(&self) -> impl Subscriber + Send + Sync + 'static {
        use tracing_subscriber::filter::filter_fn;
        use tracing_subscriber::layer::SubscriberExt as _;
        tracing_subscriber::registry()
            .with(
                self.layer()
                    .with_filter(filter_fn(|m| m.is_span() && m.name() == ROUND_SPAN)),
            )
            .with(warnings())
    }

    /// Mark the replica as draining: `/health` answers 503 from now on.
    pub fn start_drain(&self) {
        self.draining.store(true, Ordering::SeqCst);
    }

    /// Whether a drain has started.
    pub fn is_draining(&self) -> bool {
        self.draining.load(Ordering::SeqCst)
    }

    /// Count one MCP request for as long as the returned guard lives.
    pub fn request(&self) -> InFlight {
        self.metrics.http_requests.inc();
        self.metrics.http_in_flight.inc();
        InFlight {
            metrics: self.metrics.clone(),
        }
    }

    /// The answer to `GET path` when `path` is an ops endpoint: status, content type, body.
    /// `None` for any other path.
    pub fn respond(&self, path: &str) -> Option<(u16, &'static str, String)> {
        match path {
            HEALTH_PATH if self.is_draining() => {
                Some((503, "text/plain; charset=utf-8", "draining\n".into()))
            }
            HEALTH_PATH => Some((200, "text/plain; charset=utf-8", "ok\n".into())),
            METRICS_PATH => {
                let mut body = String::new();
                match prometheus_client::encoding::text::encode(&mut body, &self.registry) {
                    Ok(()) => Some((200, METRICS_CONTENT_TYPE, body)),
                    Err(_) => Some((
                        500,
                        "text/plain; charset=utf-8",
                        "metrics: encoding failed\n".into(),
                    )),
                }
            }
            _ => None,
        }
    }
}

/// `router` (the MCP endpoint's) with the ops endpoints beside it, and every request to
/// the MCP endpoint counted in `/metrics`.
pub fn routes(router: axum::Router, ops: Arc<Ops>) -> axum::Router {
    use axum::extract::Request;
    use axum::middleware::{self, Next};
    use axum::routing::get;

    fn reply(ops: &Ops, path: &str) -> axum::response::Response {
        use axum::response::IntoResponse as _;
        match ops.respond(path) {
            Some((status, ctype, body)) => (
                axum::http::StatusCode::from_u16(status)
                    .unwrap_or(axum::http::StatusCode::INTERNAL_SERVER_ERROR),
                [(axum::http::header::CONTENT_TYPE, ctype)],
                body,
            )
                .into_response(),
            None => axum::http::StatusCode::NOT_FOUND.into_response(),
        }
    }
    let (health, metrics, count) = (ops.clone(), ops.clone(), ops);
    router
        .route(
            HEALTH_PATH,
            get(move || std::future::ready(reply(&health, HEALTH_PATH))),
        )
        .route(
            METRICS_PATH,
            get(move || std::future::ready(reply(&metrics, METRICS_PATH))),
        )
        .layer(middleware::from_fn(move |request: Request, next: Next| {
            let counted =
                (request.uri().path() == elicit_rmcp::http::PATH).then(|| count.request());
            async move {
                let response = next.run(request).await;
                drop(counted);
                response
            }
        }))
}

/// Counts a request in flight until dropped.
pub struct InFlight {
    metrics: Arc<Metrics>,
}

impl Drop for InFlight {
    fn drop(&mut self) {
        self.metrics.http_in_flight.dec();
    }
}

/// The start of a drain, for the HTTP server's shutdown: resolves `grace` after the first
/// SIGTERM or SIGINT, having turned `/health` to 503 at the signal. Never resolves when
/// the signals cannot be watched (said on stderr).
pub async fn stop_signal(ops: Arc<Ops>, grace: Duration) {
    if let Err(e) = terminated().await {
        eprintln!("elicit-rmcp-server: cannot listen for SIGTERM ({e}); no drain");
        return std::future::pending().await;
    }
    ops.start_drain();
    eprintln!(
        "elicit-rmcp-server: draining: /health answers 503; closing the listener in {grace:?}"
    );
    tokio::time::sleep(grace).await;
}

/// Resolves on the first SIGTERM or SIGINT.
async fn terminated() -> std::io::Result<()> {
    use tokio::signal::unix::{signal, SignalKind};
    let mut term = signal(SignalKind::terminate())?;
    let mut int = signal(SignalKind::interrupt())?;
    tokio::select! {
        _ = term.recv() => {}
        _ = int.recv() => {}
    }
    Ok(())
}

/// The fields of one `elicit.round` span, gathered while it is open. The `key_id` is not
/// kept: it goes to the sealing-key gauge as it is recorded.
struct Round {
    started: Instant,
    tool: Option<Label>,
    era: Option<Label>,
    outcome: Option<Label>,
    questions: u64,
    rejection: Option<Label>,
}

/// A visit of a round's fields: into its [`Round`], the key straight to the metrics.
struct Fields<'a> {
    round: &'a mut Round,
    metrics: &'a Metrics,
}

impl Visit for Fields<'_> {
    fn record_str(&mut self, field: &Field, value: &str) {
        let slot = match field.name() {
            "tool" => &mut self.round.tool,
            "era" => &mut self.round.era,
            "outcome" => &mut self.round.outcome,
            "rejection" => &mut self.round.rejection,
            "key_id" => return self.metrics.note_key(value),
            _ => return,
        };
        *slot = Some(label(value));
    }

    fn record_u64(&mut self, field: &Field, value: u64) {
        if field.name() == "questions" {
            self.round.questions = value;
        }
    }

    fn record_i64(&mut self, field: &Field, value: i64) {
        self.record_u64(field, u64::try_from(value).unwrap_or(0));
    }

    fn record_debug(&mut self, field: &Field, value: &dyn std::fmt::Debug) {
        // `%value` fields arrive here; their Debug is the Display text.
        self.record_str(field, &format!("{value:?}"));
    }
}

/// A `tracing_subscriber` layer feeding [`Ops`]' metrics from `elicit.round` spans.
pub struct RoundLayer {
    metrics: Arc<Metrics>,
}

impl<S> Layer<S> for RoundLayer
where
    S: Subscriber + for<'a> LookupSpan<'a>,
{
    fn on_new_span(&self, attrs: &Attributes<'_>, id: &Id, ctx: Context<'_, S>) {
        if attrs.metadata().name() != ROUND_SPAN {
            return;
        }
        let Some(span) = ctx.span(id) else { return };
        let mut round = Round {
            started: Instant::now(),
            tool: None,
            era: None,
            outcome: None,
            questions: 0,
            rejection: None,
        };
        attrs.record(&mut Fields {
            round: &mut round,
            metrics: &self.metrics,
        });
        span.extensions_mut().insert(round);
    }

    fn on_record(&self, id: &Id, values: &Record<'_>, ctx: Context<'_, S>) {
        let Some(span) = ctx.span(id) else { return };
        let mut ext = span.extensions_mut();
        if let Some(round) = ext.get_mut::<Round>() {
            values.record(&mut Fields {
                round,
                metrics: &self.metrics,
            });
        }
    }

    fn on_close(&self, id: Id, ctx: Context<'_, S>) {
        let Some(span) = ctx.span(&id) else { return };
        let Some(round) = span.extensions_mut().remove::<Round>() else {
            return;
        };
        self.metrics.observe(round);
    }
}

impl Series {
    fn new(metrics: &Metrics, tool: Label, era: Label) -> Series {
        let latency = metrics
            .latency
            .get_or_create_owned(&EraLabel { era: era.clone() });
        Series {
            tool,
            era,
            outcomes: Default::default(),
            questions: OnceLock::new(),
            latency,
        }
    }

    fn labels(&self, outcome: Label) -> RoundLabels {
        RoundLabels {
            tool: self.tool.clone(),
            era: self.era.clone(),
            outcome,
        }
    }

    /// Count one closed round of this tool and era.
    fn count(&self, metrics: &Metrics, outcome: &Label, questions: u64, started: Instant) {
        let mut known = OUTCOMES.iter().zip(&self.outcomes);
        match known.find(|(o, _)| **o == outcome) {
            Some((o, counter)) => counter
                .get_or_init(|| {
                    let labels = self.labels(Cow::Borrowed(o));
                    metrics.rounds.get_or_create_owned(&labels)
                })
                .inc(),
            None => metrics
                .rounds
                .get_or_create(&self.labels(outcome.clone()))
                .inc(),
        };
        if questions > 0 {
            let tool_era = || ToolEra {
                tool: self.tool.clone(),
                era: self.era.clone(),
            };
            self.questions
                .get_or_init(|| metrics.questions.get_or_create_owned(&tool_era()))
                .inc_by(questions);
        }
        self.latency.observe(started.elapsed().as_secs_f64());
    }
}

impl Metrics {
    fn observe(&self, round: Round) {
        let unknown = || Cow::Borrowed("unknown");
        let Round {
            started,
            tool,
            era,
            outcome,
            questions,
            rejection,
        } = round;
        let (tool, era) = (tool.unwrap_or_else(unknown), era.unwrap_or_else(unknown));
        let outcome = outcome.unwrap_or_else(unknown);
        self.with_series(tool, era, |series| {
            series.count(self, &outcome, questions, started)
        });
        if outcome == "rejected" {
            let reason = rejection.unwrap_or_else(unknown);
            self.rejections.get_or_create(&ReasonLabel { reason }).inc();
        }
    }

    /// `f` on the series of `tool` and `era`, made on first use.
    fn with_series(&self, tool: Label, era: Label, f: impl FnOnce(&Series)) {
        if let Ok(all) = self.series.read() {
            let eras = all.get(tool.as_ref()).map_or(&[][..], Vec::as_slice);
            if let Some(series) = eras.iter().find(|s| s.era == era) {
                return f(series);
            }
        }
        let Ok(mut all) = self.series.write() else {
            return;
        };
        let eras = all.entry(tool.as_ref().into()).or_default();
        if !eras.iter().any(|s| s.era == era) {
            eras.push(Series::new(self, tool, era.clone()));
        }
        if let Some(series) = eras.iter().find(|s| s.era == era) {
            f(series);
        }
    }

    /// The sealing key in use is the one the latest round named.
    fn note_key(&self, key_id: &str) {
        let key_id = cut(key_id);
        let Ok(mut last) = self.last_key.lock() else {
            return;
        };
        if last.as_deref() == Some(key_id) {
            return;
        }
        if let Some(old) = last.take() {
            self.sealing_key
                .get_or_create(&KeyLabel { key_id: old })
                .set(0);
        }
        self.sealing_key
            .get_or_create(&KeyLabel {
                key_id: key_id.to_string(),
            })
            .set(1);
        *last = Some(key_id.to_string());
    }
}

/// Warnings and errors (rejected states, developer errors) as lines on stderr.
fn warnings<S>() -> impl tracing_subscriber::Layer<S>
where
    S: Subscriber + for<'a> tracing_subscriber::registry::LookupSpan<'a>,
{
    use tracing_subscriber::filter::LevelFilter;
    use tracing_subscriber::Layer as _;
    tracing_subscriber::fmt::layer()
        .with_writer(std::io::stderr)
        .with_filter(LevelFilter::WARN)
}

/// The stdio server's subscriber: [`warnings`] alone (no metrics endpoint to feed).
pub fn log_subscriber() -> impl Subscriber + Send + Sync + 'static {
    use tracing_subscriber::layer::SubscriberExt as _;
    tracing_subscriber::registry().with(warnings())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Emit rounds as elicit-rmcp does (the span contract) under a subscriber with the
    /// layer; the metrics text after.
    fn metrics_after(emit: impl FnOnce()) -> (Arc<Ops>, String) {
        let ops = Ops::new();
        tracing::subscriber::with_default(ops.subscriber(), emit);
        let (status, ctype, body) = ops.respond(METRICS_PATH).unwrap();
        assert_eq!((status, ctype), (200, METRICS_CONTENT_TYPE));
        (ops, body)
    }

    fn round(tool: &str, era: &str, outcome: &str, questions: u64, rejection: &str, key: &str) {
        let span = tracing::info_span!(
            "elicit.round",
            tool,
            era,
            outcome = tracing::field::Empty,
            questions = tracing::field::Empty,
            rejection = tracing::field::Empty,
            key_id = tracing::field::Empty,
        );
        let _in = span.enter();
        span.record("outcome", outcome);
        if questions > 0 {
            span.record("questions", questions);
        }
        if !rejection.is_empty() {
            span.record("rejection", rejection);
        }
        if !key.is_empty() {
            span.record("key_id", tracing::field::display(key));
        }
    }

    fn line<'a>(body: &'a str, prefix: &str) -> Option<&'a str> {
        body.lines().find(|l| l.starts_with(prefix))
    }

    #[test]
    fn rounds_become_counters_by_tool_era_and_outcome() {
        let (_, body) = metrics_after(|| {
            round("book_flight", "2026-07-28", "asked", 2, "", "k1");
            round("book_flight", "2026-07-28", "asked", 1, "", "k1");
            round("book_flight", "2026-07-28", "completed", 0, "", "k1");
            round("greet", "handshake", "completed", 0, "", "");
            round("book_flight", "handshake", "asked", 4, "", "k1");
        });
        assert_eq!(
            line(
                &body,
                r#"elicit_rounds_total{tool="book_flight",era="2026-07-28",outcome="asked"}"#
            ),
            Some(r#"elicit_rounds_total{tool="book_flight",era="2026-07-28",outcome="asked"} 2"#)
        );
        assert!(body.contains(
            r#"elicit_rounds_total{tool="book_flight",era="2026-07-28",outcome="completed"} 1"#
        ));
        assert!(body.contains(
            r#"elicit_rounds_total{tool="greet",era="handshake",outcome="completed"} 1"#
        ));
        assert!(body.contains(r#"elicit_questions_total{tool="book_flight",era="2026-07-28"} 3"#));
        // The same tool in the other era is a series of its own.
        assert!(body.contains(
            r#"elicit_rounds_total{tool="book_flight",era="handshake",outcome="asked"} 1"#
        ));
        assert!(body.contains(r#"elicit_questions_total{tool="book_flight",era="handshake"} 4"#));
        assert!(!body.contains(r#"elicit_questions_total{tool="greet""#));
        assert!(body.contains(r#"elicit_round_duration_seconds_count{era="2026-07-28"} 3"#));
        assert!(body.contains(r#"elicit_round_duration_seconds_count{era="handshake"} 2"#));
        assert!(body.contains(r#"elicit_sealing_key{key_id="k1"} 1"#));
        assert!(!body.contains("elicit_state_rejections_total{"));
    }

    #[test]
    fn rejections_count_by_reason_and_the_key_in_use_follows_the_rounds() {
        let (_, body) = metrics_after(|| {
            round("order", "2026-07-28", "asked", 1, "", "old");
            round("order", "2026-07-28", "rejected", 0, "expired", "new");
            round("order", "2026-07-28", "rejected", 0, "expired", "new");
            round("order", "2026-07-28", "rejected", 0, "bad_seal", "new");
        });
        assert!(body.contains(r#"elicit_state_rejections_total{reason="expired"} 2"#));
        assert!(body.contains(r#"elicit_state_rejections_total{reason="bad_seal"} 1"#));
        assert!(body.contains(
            r#"elicit_rounds_total{tool="order",era="2026-07-28",outcome="rejected"} 3"#
        ));
        assert!(body.contains(r#"elicit_sealing_key{key_id="new"} 1"#));
        assert!(body.contains(r#"elicit_sealing_key{key_id="old"} 0"#));
    }

    #[test]
    fn other_spans_and_unfinished_fields_are_handled() {
        let (_, body) = metrics_after(|| {
            let _other = tracing::info_span!("something.else", tool = "x").entered();
            // A round closed without an outcome (a bug upstream) is still counted.
            let _r = tracing::info_span!("elicit.round", tool = "greet", era = "2026-07-28");
        });
        assert!(!body.contains(r#"tool="x""#));
        assert!(body
            .contains(r#"elicit_rounds_total{tool="greet",era="2026-07-28",outcome="unknown"} 1"#));
    }

    #[test]
    fn label_values_are_bounded() {
        let long = "t".repeat(500);
        let (_, body) = metrics_after(|| round(&long, "2026-07-28", "asked", 1, "", ""));
        assert!(body.contains(&format!(r#"tool="{}""#, "t".repeat(MAX_LABEL))));
        assert!(!body.contains(&"t".repeat(MAX_LABEL + 1)));
    }

    #[test]
    fn health_turns_503_when_draining_and_requests_are_counted() {
        let ops = Ops::new();
        assert_eq!(ops.respond(HEALTH_PATH).map(|r| r.0), Some(200));
        {
            let _a = ops.request();
            let _b = ops.request();
            let body = ops.respond(METRICS_PATH).unwrap().2;
            assert!(body.contains("elicit_http_requests_in_flight 2"));
        }
        let body = ops.respond(METRICS_PATH).unwrap().2;
        assert!(body.contains("elicit_http_requests_in_flight 0"));
        assert!(body.contains("elicit_http_requests_total 2"));
        ops.start_drain();
        assert_eq!(
            ops.respond(HEALTH_PATH).map(|r| (r.0, r.2)),
            Some((503, "draining\n".into()))
        );
        assert!(ops.respond("/mcp").is_none());
    }
}
