//! One upload's progress: a bar and its bytes and percent, or where it
//! stands when it is not sending.

use leptos::prelude::*;

use crate::files::{percent, size_label, UploadState};

#[component]
pub fn UploadProgress(done: u64, size: u64, state: UploadState, name: String) -> impl IntoView {
    let pct = percent(done, size);
    let text = match &state {
        UploadState::Hashing => "Preparing…".to_string(),
        UploadState::Beginning | UploadState::Sending => {
            format!("{} of {} · {pct} %", size_label(done), size_label(size))
        }
        UploadState::Paused => format!("Waiting · {pct} %"),
        UploadState::Stored(_) => "Uploaded".to_string(),
        UploadState::Failed(why) => why.clone(),
        UploadState::Cancelled => "Cancelled".to_string(),
    };
    let failed = matches!(state, UploadState::Failed(_));
    let bar = matches!(
        state,
        UploadState::Beginning | UploadState::Sending | UploadState::Paused
    );
    view! {
        <div class="upload-progress" class:send-error=failed data-testid="upload-progress"
            data-percent=pct.to_string()>
            {bar.then(|| view! {
                <progress max="100" value=pct.to_string() aria-label=format!("Upload of {name}")></progress>
            })}
            <span class="upload-text">{text}</span>
        </div>
    }
}
