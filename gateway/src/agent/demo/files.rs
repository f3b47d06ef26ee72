//! `/demo files`: an answer that carries files (§13), an image and a
//! document the demo makes itself, stored the way uploads are.

use std::time::Duration;

use super::snapshots::stream;
use crate::agent::{Reply, Turn, TurnError};
use crate::files::png;

/// The text of the answer.
pub const ANSWER: &str = "Here is a **chart** of this week and the **report** behind it.";
/// Chart size in pixels.
const WIDTH: u32 = 240;
const HEIGHT: u32 = 120;
/// Snapshots of the short answer.
const SNAPSHOTS: usize = 12;

/// Streams [`ANSWER`] and stops with the chart and the report attached
/// (whatever of them the store took; the rest is named in the text).
pub async fn send(turn: &mut Turn, mut reply: Reply, step: Duration) -> Result<(), TurnError> {
    let mut files = Vec::new();
    let mut text = ANSWER.to_string();
    for (name, bytes) in [("chart.png", chart_png()), ("report.pdf", report_pdf())] {
        match turn.keep_file(name, bytes).await? {
            Ok(file) => files.push(file),
            Err(why) => text.push_str(&format!("\n\n(*{name}* could not be stored: {why}.)")),
        }
    }
    reply.text = text.clone();
    reply.files = files.into_boxed_slice();
    stream(turn, &text, SNAPSHOTS, step, reply).await
}

/// A bar chart as an RGB PNG.
pub fn chart_png() -> Vec<u8> {
    const BARS: [u32; 7] = [40, 75, 55, 95, 70, 105, 85];
    let bar_width = WIDTH / BARS.len() as u32;
    png::rgb(WIDTH, HEIGHT, |x, y| {
        let bar = (x / bar_width) as usize;
        let height = BARS.get(bar).copied().unwrap_or(0);
        if x % bar_width > 3 && HEIGHT - y <= height {
            [0x3b, 0x82, 0xf6]
        } else {
            [0xf8, 0xfa, 0xfc]
        }
    })
}

/// A one-page PDF with a title and a line of text.
pub fn report_pdf() -> Vec<u8> {
    let content = "BT /F1 20 Tf 72 720 Td (Weekly report) Tj 0 -32 Td /F1 12 Tf \
                   (Requests peaked on Saturday; the chart has the numbers.) Tj ET";
    let objects = [
        "<< /Type /Catalog /Pages 2 0 R >>".to_string(),
        "<< /Type /Pages /Kids [3 0 R] /Count 1 >>".to_string(),
        "<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R \
         /Resources << /Font << /F1 5 0 R >> >> >>"
            .to_string(),
        format!(
            "<< /Length {} >>\nstream\n{content}\nendstream",
            content.len()
        ),
        "<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>".to_string(),
    ];
    let mut pdf = String::from("%PDF-1.4\n");
    let mut offsets = Vec::new();
    for (i, object) in objects.iter().enumerate() {
        offsets.push(pdf.len());
        pdf.push_str(&format!("{} 0 obj\n{object}\nendobj\n", i + 1));
    }
    let xref = pdf.len();
    pdf.push_str(&format!(
        "xref\n0 {}\n0000000000 65535 f \n",
        objects.len() + 1
    ));
    for offset in offsets {
        pdf.push_str(&format!("{offset:010} 00000 n \n"));
    }
    pdf.push_str(&format!(
        "trailer\n<< /Size {} /Root 1 0 R >>\nstartxref\n{xref}\n%%EOF\n",
        objects.len() + 1
    ));
    pdf.into_bytes()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::files::sniff::{sniff, PDF, PNG};

    #[test]
    fn the_demo_files_are_what_they_say() {
        let png = chart_png();
        let sniffed = sniff(&png).expect("a type");
        assert_eq!((sniffed.mime, sniffed.size), (PNG, Some((WIDTH, HEIGHT))));
        assert_eq!(sniff(&report_pdf()).map(|s| s.mime), Some(PDF));
    }
}
