//! The store's side of search: the field's state lives here so that the
//! gateway's replies (and errors naming a query) reach it through `apply`.

use super::{Change, Effect, Store};
use crate::protocol::{ClientFrame, SearchResults};
use crate::search::SearchState;

impl Store {
    /// A `search.results` frame, for the search field's state.
    pub(super) fn on_search_results(&mut self, r: SearchResults) -> Vec<Effect> {
        if self.search.on_results(r) {
            self.changes.push(Change::Search);
        }
        Vec::new()
    }

    pub fn search(&self) -> &SearchState {
        &self.search
    }

    /// The search field's text changed: the edit to fire after the
    /// debounce, if any.
    pub fn search_input(&mut self, text: &str) -> Option<u64> {
        let edit = self.search.input(text);
        self.changes.push(Change::Search);
        edit
    }

    /// The debounce of `edit` ran out.
    pub fn search_fire(&mut self, edit: u64, now_ms: f64) -> Vec<Effect> {
        if !self.online {
            return Vec::new();
        }
        let frame = self.search.fire(edit, now_ms);
        self.search_sent(frame)
    }

    pub fn search_more(&mut self, now_ms: f64) -> Vec<Effect> {
        if !self.online {
            return Vec::new();
        }
        let frame = self.search.more(now_ms);
        self.search_sent(frame)
    }

    /// Gives up on a reply that takes too long.
    pub fn search_tick(&mut self, now_ms: f64) {
        if self.search.tick(now_ms) {
            self.changes.push(Change::Search);
        }
    }

    pub fn search_clear(&mut self) {
        self.search.clear();
        self.changes.push(Change::Search);
    }

    fn search_sent(&mut self, frame: Option<crate::protocol::Search>) -> Vec<Effect> {
        match frame {
            Some(f) => {
                self.changes.push(Change::Search);
                vec![Effect::Send(ClientFrame::Search(f))]
            }
            None => Vec::new(),
        }
    }
}
