//! The `error` frame that answers one request. A leaf: the request
//! handlers, search and the connection all answer with it.

use aria_protocol::{ErrorCode, ErrorFrame, ServerFrame};

use crate::store_error::StoreError;

/// An `error` frame answering one request (boxed: results carrying it stay small).
#[derive(Debug)]
pub struct RequestError(Box<ErrorFrame>);

impl RequestError {
    pub fn new(code: ErrorCode, message: impl Into<String>) -> Self {
        Self(Box::new(ErrorFrame {
            code,
            message: message.into(),
            channel_id: None,
            client_msg_id: None,
            request_id: None,
            query: None,
            upload_id: None,
        }))
    }

    pub(crate) fn not_found(channel_id: &str) -> Self {
        Self::new(
            ErrorCode::NotFound,
            format!("There is no channel {channel_id}."),
        )
        .in_channel(Some(channel_id))
    }

    pub(crate) fn in_channel(mut self, channel_id: Option<&str>) -> Self {
        self.0.channel_id = channel_id.map(str::to_string);
        self
    }

    pub fn for_message(mut self, client_msg_id: Option<&str>) -> Self {
        self.0.client_msg_id = client_msg_id.map(str::to_string);
        self
    }

    /// An error about an approval (§9) or a `file.get` (§13) carries its
    /// `request_id`.
    pub(crate) fn for_request(mut self, request_id: &str) -> Self {
        self.0.request_id = Some(request_id.to_string());
        self
    }

    /// An error about an upload carries its `upload_id` (§13).
    pub(crate) fn for_upload(mut self, upload_id: &str) -> Self {
        self.0.upload_id = Some(upload_id.to_string());
        self
    }

    /// An error about a `search` carries its query (§10).
    pub(crate) fn for_query(mut self, query: &str) -> Self {
        self.0.query = Some(query.to_string());
        self
    }

    /// Maps a store failure; `channel_id` names the channel a not-found is about.
    pub(crate) fn from_store(e: StoreError, channel_id: Option<&str>) -> Self {
        match (e, channel_id) {
            (StoreError::NotFound, Some(id)) => Self::not_found(id),
            (e, _) if e.is_disk_full() => {
                tracing::error!("store error: the disk is full: {e}");
                Self::new(
                    ErrorCode::Internal,
                    "The gateway's disk is full, so nothing was saved; try again once it has \
                     room.",
                )
                .in_channel(channel_id)
            }
            (StoreError::OffPath, Some(id)) => Self::new(
                ErrorCode::NotFound,
                "That item is on another branch of the thread.",
            )
            .in_channel(Some(id)),
            (e, _) => {
                tracing::error!("store error: {e}");
                Self::new(ErrorCode::Internal, "The gateway could not access its log.")
                    .in_channel(channel_id)
            }
        }
    }

    pub fn into_frame(self) -> ServerFrame {
        ServerFrame::Error(*self.0)
    }
}
