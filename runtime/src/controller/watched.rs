//! Mapping a change of a watched object to the objects to reconcile.

use kube::api::{DynamicObject, PartialObjectMeta};
use kube::core::ObjectMeta;
use kube::runtime::reflector::{ObjectRef, Store};
use kube::{Resource, ResourceExt};

use std::sync::Arc;

use super::index::Index;
use super::scope::{Kind, KindScope};
use crate::ObjectOf;
use crate::RelatedKind;

/// An object of a kind in `#[rop(watches(...))]` that changed, as its metadata-only watch saw
/// it: which kind it is, and its metadata (name, namespace, labels, annotations, owner
/// references). [`super::Reconciler::map_watched`] gets it.
#[derive(Clone, Debug)]
pub struct Watched {
    kind: RelatedKind,
    object: PartialObjectMeta<DynamicObject>,
}

impl Watched {
    pub(crate) fn new(kind: RelatedKind, object: PartialObjectMeta<DynamicObject>) -> Self {
        Self { kind, object }
    }

    /// The watched kind: its group (`""` for core), version, kind and plural.
    pub fn kind(&self) -> &RelatedKind {
        &self.kind
    }

    /// Whether the object is of kind `O` (a k8s-openapi type or a custom kind's root type).
    pub fn is<O: Resource<DynamicType = ()>>(&self) -> bool {
        self.kind.group == O::group(&()) && self.kind.kind == O::kind(&())
    }

    /// The object's metadata.
    pub fn meta(&self) -> &ObjectMeta {
        &self.object.metadata
    }

    /// The object's name.
    pub fn name(&self) -> String {
        self.object.name_any()
    }

    /// The object's namespace; `None` for a cluster-scoped object.
    pub fn namespace(&self) -> Option<String> {
        self.object.namespace()
    }

    /// The object of kind `O` named in the watched object's controller owner reference (none
    /// when its controller is of another kind): what a change to an owned object reconciles.
    pub fn controller_owner<O>(&self) -> Vec<ObjectRef<O>>
    where
        O: Resource<DynamicType = (), Scope: KindScope>,
    {
        let owners = self.object.metadata.owner_references.iter().flatten();
        owners
            .filter(|r| r.controller == Some(true) && r.kind == O::kind(&()) && r.api_version == O::api_version(&()))
            .map(|r| in_scope(ObjectRef::new(&r.name), self.namespace()))
            .collect()
    }

    /// The object of kind `O` in the watched object's namespace with the watched object's name
    /// (a Secret named after the object it belongs to), or, for a cluster-scoped `O`, with that
    /// name.
    pub fn same_name<O>(&self) -> Vec<ObjectRef<O>>
    where
        O: Resource<DynamicType = (), Scope: KindScope>,
    {
        vec![in_scope(ObjectRef::new(&self.name()), self.namespace())]
    }
}

impl Watched {
    /// The object of kind `O` named by the watched object's label `key` (a Secret labelled
    /// `example.com/tenant: acme` belongs to the Tenant `acme`), in the watched object's
    /// namespace for a namespaced `O`; none without the label.
    pub fn labelled<O>(&self, key: &str) -> Vec<ObjectRef<O>>
    where
        O: Resource<DynamicType = (), Scope: KindScope>,
    {
        let name = self.object.metadata.labels.as_ref().and_then(|labels| labels.get(key));
        name.map(|name| in_scope(ObjectRef::new(name), self.namespace())).into_iter().collect()
    }
}

/// `reference` in `namespace` when `O` is namespaced.
fn in_scope<O>(reference: ObjectRef<O>, namespace: Option<String>) -> ObjectRef<O>
where
    O: Resource<DynamicType = (), Scope: KindScope>,
{
    match namespace {
        Some(namespace) if <O::Scope as KindScope>::NAMESPACED => reference.within(&namespace),
        _ => reference,
    }
}

/// A controller's objects as its watch last saw them, for [`super::Reconciler::map_watched`]
/// to look up the objects that refer to a watched one. Reads take no API request.
pub struct Cache<K: Kind> {
    store: Store<ObjectOf<K>>,
    index: Arc<Index<ObjectOf<K>>>,
}

impl<K: Kind> Cache<K> {
    pub(crate) fn new(store: Store<ObjectOf<K>>, index: Arc<Index<ObjectOf<K>>>) -> Self {
        Self { store, index }
    }

    /// The objects in `namespace` (in every namespace: `None`) that
    /// [`super::Config::index`] gives the key `key`: a lookup, where [`Cache::find`]
    /// scans (controller-runtime's `MatchingFields` on a field index).
    ///
    /// ```
    /// # use rop::controller::{Cache, Config, ObjectRef, Watched};
    /// # #[derive(rop::CustomResource, serde::Serialize, serde::Deserialize, Clone, Debug, rop::JsonSchema)]
    /// # #[rop(group = "example.com", version = "v1", kind = "Tenant", namespaced)]
    /// # #[rop(watches(rop::k8s_openapi::api::core::v1::Secret))]
    /// # pub struct TenantSpec { secret_name: String }
    /// // In `Reconciler::config`: each Tenant under the Secret it names, `<namespace>/<name>`.
    /// let config = Config::<Tenant>::default().index(|tenant: &Tenant| {
    ///     let namespace = tenant.metadata.namespace.clone().unwrap_or_default();
    ///     vec![format!("{namespace}/{}", tenant.spec.secret_name)]
    /// });
    ///
    /// // In `Reconciler::map_watched`: the Tenants that name the Secret that changed.
    /// fn tenants_of(secret: &Watched, cache: &Cache<Tenant>) -> Vec<ObjectRef<Tenant>> {
    ///     let key = format!("{}/{}", secret.namespace().unwrap_or_default(), secret.name());
    ///     cache.indexed(None, &key)
    /// }
    /// ```
    pub fn indexed(&self, namespace: Option<&str>, key: &str) -> Vec<ObjectRef<ObjectOf<K>>> {
        self.index.lookup(namespace, key)
    }

    /// Every object for which `refers` is true (a linear scan of the cache).
    ///
    /// ```
    /// # use rop::controller::{Cache, ObjectRef, Watched};
    /// # #[derive(rop::CustomResource, serde::Serialize, serde::Deserialize, Clone, Debug, rop::JsonSchema)]
    /// # #[rop(group = "example.com", version = "v1", kind = "Tenant", namespaced)]
    /// # #[rop(watches(rop::k8s_openapi::api::core::v1::Secret))]
    /// # pub struct TenantSpec { secret_name: Option<String> }
    /// // The Tenants whose spec names the Secret that changed.
    /// fn tenants_of(secret: &Watched, cache: &Cache<Tenant>) -> Vec<ObjectRef<Tenant>> {
    ///     cache.find(|tenant| tenant.spec.secret_name.as_deref() == Some(&*secret.name()))
    /// }
    /// ```
    pub fn find(&self, refers: impl Fn(&ObjectOf<K>) -> bool) -> Vec<ObjectRef<ObjectOf<K>>> {
        self.store.state().iter().filter(|object| refers(object)).map(|object| ObjectRef::from_obj(&**object)).collect()
    }

    /// Every object in the cache (a watched object every one of them depends on, such as a
    /// shared ConfigMap).
    pub fn all(&self) -> Vec<ObjectRef<ObjectOf<K>>> {
        self.find(|_| true)
    }

    /// The object `reference` names, if the cache has it.
    pub fn get(&self, reference: &ObjectRef<ObjectOf<K>>) -> Option<std::sync::Arc<ObjectOf<K>>> {
        self.store.get(reference)
    }
}

#[cfg(test)]
mod tests {
    use k8s_openapi::api::core::v1::{Namespace, Secret};
    use k8s_openapi::apimachinery::pkg::apis::meta::v1::OwnerReference;

    use super::*;

    fn watched(namespace: Option<&str>, owners: Vec<OwnerReference>) -> Watched {
        let metadata = kube::core::ObjectMeta {
            name: Some("db-credentials".into()),
            namespace: namespace.map(String::from),
            owner_references: Some(owners),
            ..Default::default()
        };
        let object = PartialObjectMeta::<DynamicObject> { types: None, metadata, _phantom: std::marker::PhantomData };
        let kind = RelatedKind { group: "", version: "v1", kind: "Secret", plural: "secrets" };
        Watched::new(kind, object)
    }

    fn owner(kind: &str, name: &str, controller: bool) -> OwnerReference {
        OwnerReference {
            api_version: "v1".into(),
            kind: kind.into(),
            name: name.into(),
            controller: Some(controller),
            ..OwnerReference::default()
        }
    }

    #[test]
    fn the_controller_owner_of_the_asked_kind_is_mapped_in_its_scope() {
        let secret = watched(Some("team-a"), vec![owner("Secret", "other", false), owner("Secret", "parent", true)]);
        assert!(secret.is::<Secret>());
        assert!(!secret.is::<Namespace>());
        assert_eq!(secret.controller_owner::<Secret>(), vec![ObjectRef::new("parent").within("team-a")]);

        let namespaced_child = watched(Some("team-a"), vec![owner("Namespace", "team-a", true)]);
        assert_eq!(namespaced_child.controller_owner::<Namespace>(), vec![ObjectRef::new("team-a")]);
        assert_eq!(namespaced_child.controller_owner::<Secret>(), vec![]);
    }

    #[test]
    fn same_name_keeps_the_namespace_only_for_a_namespaced_kind() {
        let secret = watched(Some("team-a"), vec![]);
        assert_eq!(secret.same_name::<Secret>(), vec![ObjectRef::new("db-credentials").within("team-a")]);
        assert_eq!(secret.same_name::<Namespace>(), vec![ObjectRef::new("db-credentials")]);
    }
}
