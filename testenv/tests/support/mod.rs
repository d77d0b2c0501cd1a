//! What the tests of `TestEnv::start_controller` share: a project folder for a kind defined in
//! the test.

use rop::CustomResource;

/// A project folder with `K`'s CRD in `config/crd/bases`, the manager's role from its RBAC
/// rules in `config/rbac/role.yaml` and `sample` (its YAML) as `config/samples/<file>`, as
/// `rop generate` and `rop create api` write them.
pub fn project<K: CustomResource>(file: &str, sample: &str) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let write = |path: &str, text: &str| {
        let path = dir.path().join(path);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    };
    let crd = K::custom_resource_definition();
    let crd_file = format!("config/crd/bases/{}.yaml", crd.metadata.name.as_deref().unwrap());
    write(&crd_file, &serde_yaml::to_string(&crd).unwrap());
    let role = &rop::rbac::roles(&K::rbac_rules(), "manager-role")[0];
    write("config/rbac/role.yaml", &serde_yaml::to_string(&role.to_object()).unwrap());
    write(&format!("config/samples/{file}"), sample);
    dir
}
