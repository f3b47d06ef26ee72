//! The app's Leptos components, each in the file named for what it shows.

pub(crate) mod app;
pub(crate) mod approval_card;
pub(crate) mod bubble;
pub(crate) mod chat;
pub(crate) mod composer;
pub(crate) mod copy_button;
pub(crate) mod export_progress;
pub(crate) mod frame_refusal;
pub(crate) mod gateway_prompt;
pub(crate) mod live_regions;
pub(crate) mod markdown_view;
pub(crate) mod notices;
pub(crate) mod offline_settings;
pub(crate) mod progress_draft;
pub(crate) mod reasoning_block;
pub(crate) mod row_view;
pub(crate) mod saved_gateways;
pub(crate) mod search_box;
pub(crate) mod service_worker;
pub(crate) mod settings_panel;
pub(crate) mod shortcut_help;
pub(crate) mod sidebar;
pub(crate) mod status;
pub(crate) mod thread_menu;
pub(crate) mod timeline;
pub(crate) mod tool_card;
