use super::sanitize_mathml;
use crate::math::tests::{mathml_problem, unsafe_reason_allowing_math};
use crate::to_html;

/// Hostile MathML, as a converter bug or a hostile input might produce it.
const HOSTILE_MATHML: &[&str] = &[
    "<math><mtext><a href=\"javascript:alert(1)\">x</a></mtext></math>",
    "<math href=\"javascript:alert(1)\"><mi>x</mi></math>",
    "<math><mi xlink:href=\"javascript:alert(1)\">x</mi></math>",
    "<math><mi onclick=\"alert(1)\" onmouseover='alert(2)' onfocus=alert(3)>x</mi></math>",
    "<math><maction actiontype=\"statusline\"><mi>x</mi><mtext>javascript:alert(1)</mtext></maction></math>",
    "<math><semantics><mi>x</mi><annotation-xml encoding=\"text/html\"><img src=x onerror=alert(1)></annotation-xml></semantics></math>",
    "<math><semantics><mi>x</mi><annotation encoding=\"application/x-tex\">x</annotation></semantics></math>",
    "<math><mtext><script>alert(1)</script></mtext></math>",
    "<math><mtext><style>*{background:url(//evil)}</style></mtext></math>",
    "<math><mi style=\"background:url(https://evil.example/x)\">x</mi></math>",
    "<math><mi class=\"settings\" id=\"app\">x</mi></math>",
    "<math><mglyph src=\"https://evil.example/x.png\"/></math>",
    "<math><mtext><iframe src=\"javascript:alert(1)\"></iframe></mtext></math>",
    "<math><mtext><svg><script>alert(1)</script></svg></mtext></math>",
    "<math><mi>x</mi></math><img src=x onerror=alert(1)>",
    "<math><mi>x<!-- --><img src=x onerror=alert(1)> --></mi></math>",
    "<math><mi>&lt;img src=x onerror=alert(1)&gt;</mi></math>",
    "<math><mi>&#60;script&#62;</mi></math>",
    "<math><mi title=\"&quot; onmouseover=&quot;alert(1)\">x</mi></math>",
    "<math><mi mathvariant=\"x\" onclick  =  \"alert(1)\">x</mi></math>",
    "<math><mtable><mtr><mtd columnspan=\"2\"><mi>x</mi></mtd></mtr></mtable>",
    "<math><mi>x</mi></math></math></math><script>alert(1)</script>",
    "<math><mi/onclick=alert(1)>x</mi></math>",
    "<math><mstyle><mi>x<mi><mi><mi><mi>deep</mstyle></math>",
    "<math><a href=\"https://evil.example\"><mi>x</mi></a></math>",
    "<math display=\"block\" alttext=\"spoof\"><mi>x</mi></math>",
    "<math><mi><![CDATA[<script>alert(1)</script>]]></mi></math>",
    "<math><mi>x</mi><",
    "<math><mi x=\"unterminated",
];

#[test]
fn hostile_mathml_is_reduced_to_presentation() {
    for input in HOSTILE_MATHML {
        let out = sanitize_mathml(input, " alttext=\"x\"");
        assert_eq!(mathml_problem(&out), None, "{input:?}: {out}");
    }
}

#[test]
fn presentation_mathml_passes_as_is() {
    let input = "<math display=\"block\"><mfrac><mi>a</mi><mn>2</mn></mfrac>\
                 <mo stretchy=\"false\">(</mo><mspace width=\"0.1667em\"></mspace></math>";
    assert_eq!(
        sanitize_mathml(input, " alttext=\"a\""),
        "<math alttext=\"a\" display=\"block\"><mfrac><mi>a</mi><mn>2</mn></mfrac>\
         <mo stretchy=\"false\">(</mo><mspace width=\"0.1667em\"></mspace></math>"
    );
}

#[test]
fn escaped_text_stays_text() {
    let out = sanitize_mathml("<math><mi>&lt;b&gt; &amp; &#x3C;</mi></math>", "");
    assert_eq!(out, "<math><mi>&lt;b&gt; &amp; &lt;</mi></math>");
}

#[test]
fn unclosed_elements_are_closed() {
    let out = sanitize_mathml("<math><mrow><mi>x", "");
    assert_eq!(out, "<math><mrow><mi>x</mi></mrow></math>");
}

/// LaTeX that asks for links, HTML, styles or scripts renders none.
const HOSTILE_LATEX: &[&str] = &[
    "$\\href{javascript:alert(1)}{click}$",
    "$\\href{https://evil.example}{x}$",
    "$\\url{javascript:alert(1)}$",
    "$\\html{<img src=x onerror=alert(1)>}$",
    "$\\htmlClass{x}{y}$",
    "$\\htmlStyle{background:url(//evil)}{y}$",
    "$\\htmlData{foo=bar}{y}$",
    "$\\htmlId{app}{y}$",
    "$\\includegraphics{https://evil.example/x.png}$",
    "$\\style{color:red}{x}$",
    "$\\class{x}{y}$",
    "$\\text{<script>alert(1)</script>}$",
    "$\\textbf{<img src=x onerror=alert(1)>}$",
    "$\\color{red}{x}\\textcolor{blue}{y}$",
    "$\\mathrm{\\Huge x}\\tiny y$",
    "$\\eqref{x\" onclick=\"alert(1)}$",
    "$$\\tag{<svg onload=alert(1)>} x$$",
    "$\\operatorname{<b>x</b>}$",
    "$\\def\\x{\\href{javascript:alert(1)}{y}}\\x$",
    "$\\newcommand{\\x}{\\href{javascript:alert(1)}{y}}\\x$",
    "$\\mathbin{\\verb|<script>|}$",
    "$\\unicode{60}script\\unicode{62}$",
    "$\\char\"3C script$",
    "$\\enclose{updiagonalstrike}{x}$",
    "$\\phantom{\\href{javascript:x}{y}}$",
    "\\(\\begin{array}{c} \\href{javascript:1}{a} \\end{array}\\)",
];

#[test]
fn hostile_latex_renders_nothing_unsafe() {
    for md in HOSTILE_LATEX {
        let html = to_html(md);
        assert_eq!(unsafe_reason_allowing_math(&html), None, "{md:?}: {html}");
    }
}
