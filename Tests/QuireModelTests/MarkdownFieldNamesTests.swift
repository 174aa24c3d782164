import QuireModel
import Testing

/// Where a markdown field's rendered forms are published, and the names a vocabulary cannot take.
@Suite struct MarkdownFieldNamesTests {
    @Test func renderedFormsArePublishedBesideTheField() {
        #expect(MarkdownFieldNames.html("body") == "body_html")
        #expect(MarkdownFieldNames.blocks("body") == "body_blocks")
    }

    @Test func theBuiltInVocabularyHasNoClash() {
        for type in Vocabulary.builtIn.types {
            #expect(MarkdownFieldNames.clashes(in: type.fields).isEmpty, "\(type.name)")
        }
    }

    @Test func aFieldNamedLikeARenderedFormClashes() {
        let fields = [
            FieldSpec("quote", .markdown), FieldSpec("quote_blocks", .text), FieldSpec("title", .text), FieldSpec("title_html", .text),
        ]
        let clashes = MarkdownFieldNames.clashes(in: fields)
        #expect(clashes.map(\.field.name) == ["quote_blocks"])
        #expect(clashes.map(\.markdownField) == ["quote"])
    }
}
