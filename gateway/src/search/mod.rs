//! Answers `search` (§10) with `search.results`, to the asking device only.

pub(crate) mod index;
pub(crate) mod page;
pub(crate) mod query;
pub(crate) mod reader;
mod snippet;

use std::sync::Arc;

use aria_protocol::{valid_query, ErrorCode, Search, SearchResults, ServerFrame};

use crate::app::App;
use crate::hub::ConnId;
use crate::request_error::RequestError;
use crate::search::index::SearchQuery;
use crate::search::page::{clamp_limit, decode_cursor, encode_cursor};
use crate::search::query::Terms;

pub async fn search(app: &Arc<App>, conn: ConnId, req: Search) -> Result<(), RequestError> {
    let query = validate(&req).map_err(|e| e.for_query(&req.query))?;
    let page = app
        .outbox
        .search_reader()
        .search(query)
        .await
        .map_err(|e| {
            RequestError::from_store(e, req.channel_id.as_deref()).for_query(&req.query)
        })?;
    let results = SearchResults {
        query: req.query,
        channel_id: req.channel_id,
        hits: page.hits,
        cursor: page.next.map(encode_cursor),
    };
    app.outbox
        .hub()
        .reply(conn, &ServerFrame::SearchResults(results));
    Ok(())
}

fn validate(req: &Search) -> Result<SearchQuery, RequestError> {
    let bad = |message: &str| {
        RequestError::new(ErrorCode::BadRequest, message).in_channel(req.channel_id.as_deref())
    };
    let text = valid_query(&req.query)
        .ok_or_else(|| bad("A search query must be 1 to 200 characters."))?;
    let after = match &req.cursor {
        Some(cursor) => Some(
            decode_cursor(cursor).ok_or_else(|| bad("This search cursor is not one of ours."))?,
        ),
        None => None,
    };
    Ok(SearchQuery {
        terms: Terms::parse(text),
        channel_id: req.channel_id.clone(),
        after,
        limit: clamp_limit(req.limit),
    })
}
