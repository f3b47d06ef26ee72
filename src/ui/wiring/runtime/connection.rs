//! Where the socket connects: the page's own gateway, a link's
//! `?gateway=` or the one in Settings, and the user's answers when a link
//! names another gateway or a token would travel unencrypted.

use leptos::prelude::*;

use super::{Prompt, Runtime, CLIENT};
use crate::net::{plan, Address, LinkAnswer, PageOrigin, Plan, Socket, Status, Target};
use crate::protocol::{Hello, PROTOCOL_VERSION};
use crate::ui::browser;

impl Runtime {
    pub fn retry_connection(&self) {
        self.replan(true);
    }

    /// Simulates a network drop (diagnostics view).
    pub fn drop_connection(&self) {
        if let Some(socket) = self.socket() {
            socket.drop_connection();
        }
    }

    /// The user's answer about the gateway a link names: yes (with the
    /// token they entered for it, if any, and "remember"), or no.
    pub fn answer_link(&self, gateway: Address, connect: bool, token: &str, remember: bool) {
        let answer = if connect {
            LinkAnswer::Accepted(gateway.clone())
        } else {
            LinkAnswer::Declined(gateway.clone())
        };
        self.core.update_value(|c| c.link = answer);
        let mut next = self.settings.get_untracked();
        if connect && !token.is_empty() {
            next.set_token(&gateway, token);
        }
        if connect && remember {
            next.trust(&gateway);
        }
        self.save_settings(next);
        self.replan(false);
    }

    /// The user's answer about sending the token unencrypted.
    pub fn answer_plaintext(&self, gateway: Address, send: bool) {
        if send {
            let mut next = self.settings.get_untracked();
            next.allow_plaintext(&gateway);
            self.save_settings(next);
            return;
        }
        self.ask(None);
        self.view.status.set(Status::Offline(format!(
            "the token was not sent, since the connection to {gateway} is not encrypted."
        )));
    }

    /// Decides where to connect and connects, or waits for the user's
    /// answer. `force` reconnects even to the same target ("retry now").
    pub(super) fn replan(&self, force: bool) {
        let Some(socket) = self.socket() else { return };
        let settings = self.settings.get_untracked();
        let link = browser::query_param("gateway");
        let answer = self
            .core
            .try_with_value(|c| c.link.clone())
            .unwrap_or_default();
        let (protocol, host) = page_location();
        let page = PageOrigin {
            protocol: &protocol,
            host: &host,
        };
        let (address, token) = match plan(link.as_deref(), &page, &settings, &answer) {
            Plan::Connect { address, token } => (address, token),
            Plan::ConfirmLink(address) => {
                self.hold(&socket, None, Prompt::Link(address));
                return;
            }
            Plan::ConfirmPlaintext(address) => {
                self.hold(&socket, Some(address.clone()), Prompt::Plaintext(address));
                return;
            }
            Plan::Unusable(why) => {
                self.stop(&socket, None);
                self.ask(None);
                self.view.status.set(Status::Offline(why));
                return;
            }
        };
        // The link's gateway, once connected to, stays this page's choice:
        // forgetting it in Settings takes effect at the next visit.
        if link.as_deref().and_then(|l| Address::parse(l).ok()) == Some(address.clone()) {
            let accepted = LinkAnswer::Accepted(address.clone());
            self.core.update_value(|c| c.link = accepted);
        }
        self.ask(None);
        self.gateway.set(Some(address.clone()));
        let target = Some((address.clone(), token.clone()));
        let same = self
            .core
            .try_with_value(|c| c.target == target)
            .unwrap_or(false);
        if same && !force {
            return;
        }
        self.core.update_value(|c| c.target = target);
        socket.retarget(Target {
            url: address.url(),
            hello: Hello {
                token,
                device_id: browser::device_id(),
                client: CLIENT.to_string(),
                protocol: PROTOCOL_VERSION,
            },
        });
    }

    /// Disconnects and shows `prompt` until the user answers.
    pub(super) fn hold(&self, socket: &Socket, gateway: Option<Address>, prompt: Prompt) {
        self.stop(socket, gateway);
        self.ask(Some(prompt));
        self.view
            .status
            .set(Status::Held("waiting for your answer.".into()));
    }

    /// Shows `prompt` (or none); an unchanged one stays as it is, with
    /// what the user typed into it.
    pub(super) fn ask(&self, prompt: Option<Prompt>) {
        if self.prompt.get_untracked() != prompt {
            self.prompt.set(prompt);
        }
    }

    pub(super) fn stop(&self, socket: &Socket, gateway: Option<Address>) {
        socket.stop();
        self.core.update_value(|c| c.target = None);
        self.gateway.set(gateway);
    }
}

/// `location.protocol` and `location.host`.
pub(super) fn page_location() -> (String, String) {
    let location = browser::location();
    let protocol = location
        .as_ref()
        .and_then(|l| l.protocol().ok())
        .unwrap_or_default();
    let host = location
        .as_ref()
        .and_then(|l| l.host().ok())
        .unwrap_or_default();
    (protocol, host)
}

/// The page's own gateway, `/ws` on its origin.
pub(super) fn page_address() -> Result<Address, String> {
    let (protocol, host) = page_location();
    Address::same_origin(&protocol, &host)
}
