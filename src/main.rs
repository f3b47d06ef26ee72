fn main() {
    leptos::mount::mount_to_body(aria_web::ui::App);
}
