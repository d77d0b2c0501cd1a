// Every kind of corpus.rs, for the includers' loops (`corpus_crds()` needs `CustomResourceExt`
// and `CustomResourceDefinition` of the includer's k8s-openapi in scope).

fn corpus_crds() -> Vec<CustomResourceDefinition> {
    vec![
        Scalar::crd(),
        Optional::crd(),
        Rename::crd(),
        Skip::crd(),
        ContainerDefault::crd(),
        UnitEnum::crd(),
        ExternallyTagged::crd(),
        MixedEnum::crd(),
        InternallyTagged::crd(),
        InternallyTaggedUnit::crd(),
        AdjacentlyTagged::crd(),
        UntaggedStruct::crd(),
        UntaggedIntOrString::crd(),
        UntaggedMixed::crd(),
        Flatten::crd(),
        FlattenMap::crd(),
        FlattenEnum::crd(),
        FreeForm::crd(),
        Recursive::crd(),
        Tuple::crd(),
        Collection::crd(),
        KnownType::crd(),
        Newtype::crd(),
        ScalarVariant::crd(),
        WithStatus::crd(),
        Validation::crd(),
        Presence::crd(),
        Cel::crd(),
        Extension::crd(),
        IntKey::crd(),
        NestedOption::crd(),
        Generic::crd(),
    ]
}
