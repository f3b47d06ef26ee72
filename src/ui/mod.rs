//! Leptos components, one file each, named for what they show; plus the
//! runtime that connects them to the store and the socket.

mod app;
mod approval_card;
mod attention;
mod boot;
mod browser;
mod bubble;
mod chat;
mod clock;
mod code_fill;
mod code_highlight;
mod composer;
mod copy_button;
mod export_progress;
mod frame_refusal;
mod gateway_prompt;
mod live_regions;
mod long_press;
mod markdown_module;
mod markdown_view;
mod notices;
mod notifications;
mod offline;
mod offline_db;
mod offline_settings;
mod order_edits;
mod progress_draft;
mod reasoning_block;
mod row_mounts;
mod row_view;
mod runtime;
mod saved_gateways;
mod search_box;
mod service_worker;
mod settings_panel;
mod shortcut_help;
mod shortcuts;
mod sidebar;
mod status;
mod thread_menu;
mod timeline;
mod tool_card;
mod view_state;
mod visual_viewport;

pub use app::App;
pub use boot::mark_booted;
