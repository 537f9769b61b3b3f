; Section headings (ATX `# Title` and setext `Title\n=====`).
(atx_heading) @heading
(setext_heading) @heading
